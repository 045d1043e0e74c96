// The geometry of the shader backends' pooling kernels (vulkan's and wgpu's conv_pool_kernels),
// written once: which cases they take, their parameter words and their workgroups. Only the
// kernels' sources differ between the backends, and each computes a window as ndarray's
// pool_windows.cpp does.
//
// Pool and AdaptivePool: one invocation per output element walks its window in row-major order
// (max: the first maximum, a NaN replacing any value; avg: the sum divided as ndarray divides).
// AvgPoolGrad and AdaptiveAvgPoolGrad: one invocation per input element adds the shares of the
// windows holding it, in the windows' row-major order (ndarray's order of adding them).
//
// The kernels read the same words: count (elements the dispatch writes), adaptive,
// count_include_pad, divisor_override (0: none), the index's words per element (0: no index,
// 1: i32, 2: i64), then three words each (front-padded to 3 spatial dims) of x's extents, the
// output's, kernel, stride, padding, dilation (adaptive: 1, 1, 0, 1).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/shader/spatial_dispatch.h"
#include "ir/ops.h"

namespace ember::shader {

/// A pooling from x's spatial extents to the output's, sliding (a Pool's) or adaptive.
struct PoolGeometry {
  std::array<uint64_t, 3> in{1, 1, 1};
  std::array<uint64_t, 3> out{1, 1, 1};
  std::array<uint64_t, 3> kernel{1, 1, 1};
  std::array<uint64_t, 3> stride{1, 1, 1};
  std::array<uint64_t, 3> padding{0, 0, 0};
  std::array<uint64_t, 3> dilation{1, 1, 1};
  bool adaptive = false;
  bool count_include_pad = false;
  uint64_t divisor_override = 0;  ///< 0: none

  static PoolGeometry of(const ir::Pool& pool, const Shape& x, const Shape& out) {
    return {spatial3(x),
            spatial3(out),
            per_dim3(pool.kernel, 1),
            per_dim3(pool.stride, 1),
            per_dim3(pool.padding, 0),
            per_dim3(pool.dilation, 1),
            false,
            pool.count_include_pad,
            static_cast<uint64_t>(pool.divisor_override.value_or(0))};
  }
  static PoolGeometry of(const ir::AdaptivePool& /*pool*/, const Shape& x, const Shape& out) {
    PoolGeometry g;
    g.in = spatial3(x);
    g.out = spatial3(out);
    g.adaptive = true;
    return g;
  }

  /// Whether the kernels' 32-bit window arithmetic holds: an adaptive window's bounds multiply
  /// an output index by x's extent.
  bool fits_32_bits() const {
    for (std::size_t a = 0; a < 3; ++a)
      if (adaptive && (in[a] + 1) * out[a] >= (uint64_t{1} << 31)) return false;
    return true;
  }
  /// Whether the extents of the window and the steps are within kMaxGeometry.
  bool geometry_fits() const {
    return shader::geometry_fits({kernel,
                                  stride,
                                  padding,
                                  dilation,
                                  {divisor_override, divisor_override, divisor_override}});
  }
  /// The most input positions of one window (the forward kernels' loop).
  uint64_t window_bound() const {
    uint64_t bound = 1;
    for (std::size_t a = 0; a < 3; ++a)
      bound *= adaptive ? (in[a] + out[a] - 1) / out[a] + 1 : kernel[a];
    return bound;
  }
  /// The most windows the gradient kernel tries for one input position: per dim, the output
  /// indices whose window's span may reach it.
  uint64_t candidate_bound() const {
    uint64_t bound = 1;
    for (std::size_t a = 0; a < 3; ++a)
      bound *= adaptive ? out[a] / in[a] + 2 : (kernel[a] - 1) * dilation[a] / stride[a] + 2;
    return bound;
  }

  /// The parameter words of a kernel writing count elements, an index of index_words words an
  /// element.
  std::vector<uint32_t> words(uint64_t count, uint32_t index_words) const {
    std::vector<uint32_t> w = {static_cast<uint32_t>(count), adaptive ? 1u : 0u,
                               count_include_pad ? 1u : 0u, static_cast<uint32_t>(divisor_override),
                               index_words};
    append_words(w, {in, out, kernel, stride, padding, dilation});
    return w;
  }
};

/// The index's words an element: 1 for i32, 2 for i64, nullopt for the other index dtypes (the
/// host's).
inline std::optional<uint32_t> index_words(DType index_dtype) {
  if (index_dtype == DType::I32) return 1;
  if (index_dtype == DType::I64) return 2;
  return std::nullopt;
}

/// The workgroups of a forward pooling of geometry g from x into values: one invocation an
/// output element; nullopt where the kernels do not take it (as spatial_tensors_fit, or windows
/// larger than an invocation may loop over).
inline std::optional<SpatialGroups> pool_groups(const SpatialLimits& limits, const PoolGeometry& g,
                                                const ir::TensorMeta& x,
                                                const ir::TensorMeta& values) {
  const ir::TensorMeta metas[] = {x, values};
  if (!spatial_tensors_fit(limits, metas) || !g.fits_32_bits() || !g.geometry_fits() ||
      g.window_bound() > limits.max_loop_turns)
    return std::nullopt;
  return groups_per_element(static_cast<uint64_t>(values.shape.num_elements()), limits.max_groups);
}

/// The workgroups of an average pooling's gradient of geometry g from grad_output into dx: one
/// invocation an element of dx; nullopt where the kernel does not take it.
inline std::optional<SpatialGroups> pool_grad_groups(const SpatialLimits& limits,
                                                     const PoolGeometry& g,
                                                     const ir::TensorMeta& grad_output,
                                                     const ir::TensorMeta& dx) {
  const ir::TensorMeta metas[] = {grad_output, dx};
  if (!spatial_tensors_fit(limits, metas) || !g.fits_32_bits() || !g.geometry_fits() ||
      g.candidate_bound() > limits.max_loop_turns)
    return std::nullopt;
  return groups_per_element(static_cast<uint64_t>(dx.shape.num_elements()), limits.max_groups);
}

}  // namespace ember::shader
