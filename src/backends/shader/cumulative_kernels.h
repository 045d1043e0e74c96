// CumulativeKernel: the shader backends' cumulative sum, product, maximum and minimum along a dim
// (cumulative_scan.h's passes), written once over a backend's KernelRunner (kernel_runner.h) and
// its kernel source (GLSL for vulkan, WGSL for wgpu: each backend's cumulative_sources.h).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "backends/shader/cumulative_scan.h"
#include "backends/shader/device_limits.h"
#include "backends/shader/index_copy.h"

namespace ember::shader {

/// Runner: a backend's KernelRunner.
template <typename Runner>
class CumulativeKernel {
 public:
  using Range = typename Runner::Range;
  /// The backend's kernel of a pass of op on dtype.
  using Source = std::string (*)(ir::CumulativeOp, DType, ScanPass);

  /// float64: whether the kernels compute in double (the device has doubles and the source
  /// accumulates in them).
  CumulativeKernel(const Runner& runner, Source source, bool float64)
      : runner_(runner), source_(source), float64_(float64) {}

  /// Whether run computes op on dtype (any lane; ScanDispatch::fits says which fit): maximum and
  /// minimum of f32, i32, u32 and (float64) f64; sums and products of i32 and u32 (wrapping),
  /// and of f32 and f64 only with float64, as ndarray accumulates them in double.
  bool takes(ir::CumulativeOp op, DType dtype) const {
    const bool total = op == ir::CumulativeOp::Sum || op == ir::CumulativeOp::Prod;
    if (dtype == DType::I32 || dtype == DType::U32) return true;
    if (dtype == DType::F64) return float64_;
    return dtype == DType::F32 && (float64_ || !total);
  }
  /// What the device allows one kernel.
  const DeviceLimits& limits() const { return runner_.limits(); }
  /// Records pass of dispatch on tensors (x, y, carries as the pass binds them: record_scan).
  /// takes() holds.
  void run(const ScanDispatch& dispatch, ScanPass pass, std::span<const Range> tensors) {
    runner_.dispatch(source_(dispatch.op, dispatch.dtype, pass),
                     std::as_bytes(std::span(dispatch.words)), tensors,
                     groups_for(dispatch.invocations(pass), runner_.limits().max_groups));
  }

 private:
  Runner runner_;
  Source source_;
  bool float64_;
};

}  // namespace ember::shader
