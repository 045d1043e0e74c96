// The one path by which the Tensor API runs an ir op: collect the operands, check that they
// share one device, infer the outputs' metadata, execute on the device's context and wrap the
// buffers as tensors.
#pragma once

#include <initializer_list>
#include <memory>
#include <span>

#include "core/device_context.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"

namespace ember::tensor {

/// Runs op on inputs (one device, at least one input) and returns its outputs, recorded by the
/// autodiff tape when an input is tracked. Tracked outputs take the tracked input's Device;
/// untracked ones the first input's.
ops::Handles run(const ir::Op& op, std::span<const TensorHandle> inputs);
/// run for an op with one output.
TensorHandle run_one(const ir::Op& op, std::initializer_list<TensorHandle> inputs);
/// Runs op on inputs, which are on device (whose context is context), with outputs, what
/// ir::infer(op, the inputs' metadata) returned, for a caller that inferred them already (the
/// server, to check them against its limits first): run without its second inference. Nothing is
/// recorded by autodiff and no autocast applies (device has neither).
ops::Handles run_inferred(const ir::Op& op, const Device& device,
                          const std::shared_ptr<detail::DeviceContext>& context,
                          std::span<const TensorHandle> inputs, ir::OutputMetas outputs);
/// Runs an op without inputs (a creation op) on device, whose context is context.
TensorHandle run_on(const ir::Op& op, const Device& device,
                    const std::shared_ptr<detail::DeviceContext>& context);

}  // namespace ember::tensor
