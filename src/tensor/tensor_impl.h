// TensorImpl: what a TensorHandle points to. Immutable once built; ops make new ones.
#pragma once

#include <memory>

#include "backends/backend.h"
#include "core/device_context.h"
#include "ember/device.h"
#include "ember/tensor_handle.h"

namespace ember::detail {

struct TensorImpl {
  /// The tensor's device, carrying the tensor's own autodiff flag.
  Device device;
  /// The physical device's context (cached so ops skip the registry lookup).
  std::shared_ptr<DeviceContext> context;
  ir::TensorMeta meta;
  backend::BufferPtr buffer;

  backend::Operand operand() const { return {buffer, meta}; }
};

/// Wraps a buffer the device produced.
TensorHandle make_handle(Device device, std::shared_ptr<DeviceContext> context, ir::TensorMeta meta,
                         backend::BufferPtr buffer);

}  // namespace ember::detail
