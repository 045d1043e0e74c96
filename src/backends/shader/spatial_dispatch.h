// What the shader backends' convolution and pooling kernels (conv_passes.h, pool_passes.h) share:
// the device's limits, the 3-d view of [N, C, *spatial] shapes (1-d and 2-d ops front-padded
// with unit dims, as ndarray's conv_plan.h and pool_windows.h pad them), the checks every one of
// them makes, and the workgroups of a dispatch.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ember/dtype.h"
#include "ember/shape.h"
#include "ir/ops.h"

namespace ember::shader {

/// The invocations of a workgroup of every convolution and pooling kernel.
constexpr uint64_t kSpatialWorkgroup = 256;

/// What a device's kernels can take: the bytes one binding reaches, the workgroups along x of
/// one dispatch, whether f64 computes (f32 always does), whether the tiled convolution
/// kernel runs the convolutions it takes (conv_passes.h; conv_pool_kernels.h's
/// tiled_conv_on says where), and whether kernels that take f16 (the interpolation kernels) may
/// store and compute it, and the loop turns one invocation may make (DeviceLimits'): every case
/// whose loops could turn more often goes to the host.
struct SpatialLimits {
  uint64_t max_binding = 0;
  uint32_t max_groups = 0;
  bool float64 = false;
  bool tiled_conv = false;
  bool float16 = false;
  uint64_t max_loop_turns = 0;
};

/// Whether every tensor of metas is of one dtype the device computes (f16 only for a kernel that
/// takes_float16), not empty, within one binding and of fewer than 2^31 elements (the kernels
/// count in 32 bits).
inline bool spatial_tensors_fit(const SpatialLimits& limits, std::span<const ir::TensorMeta> metas,
                                bool takes_float16 = false) {
  const DType dtype = metas[0].dtype;
  if (dtype != DType::F32 && !(dtype == DType::F64 && limits.float64) &&
      !(dtype == DType::F16 && takes_float16 && limits.float16))
    return false;
  for (const ir::TensorMeta& meta : metas) {
    const auto elements = static_cast<uint64_t>(meta.shape.num_elements());
    if (meta.dtype != dtype || elements == 0 || elements >= (uint64_t{1} << 31) ||
        elements * dtype_size(dtype) > limits.max_binding)
      return false;
  }
  return true;
}

/// The workgroups (x, y) of a dispatch of `workgroups` of them, x at most max_groups (the kernels
/// number them y * x_count + x and leave those past their count idle); nullopt past max_groups^2.
struct SpatialGroups {
  uint32_t x = 1;
  uint32_t y = 1;
};
inline std::optional<SpatialGroups> spatial_groups(uint64_t workgroups, uint32_t max_groups) {
  const uint64_t x = std::min<uint64_t>(std::max<uint64_t>(workgroups, 1), max_groups);
  const uint64_t y = (workgroups + x - 1) / x;
  if (y > max_groups) return std::nullopt;
  return SpatialGroups{static_cast<uint32_t>(x), static_cast<uint32_t>(std::max<uint64_t>(y, 1))};
}
/// spatial_groups of one invocation per element of `elements`.
inline std::optional<SpatialGroups> groups_per_element(uint64_t elements, uint32_t max_groups) {
  return spatial_groups((elements + kSpatialWorkgroup - 1) / kSpatialWorkgroup, max_groups);
}

/// How a backend records one of these kernels: dispatch(source, words, tensors, groups_x,
/// groups_y), its parameter block at binding 0, tensors at 1 and on.
template <typename Range>
using SpatialDispatch = std::function<void(const std::string&, std::span<const std::byte>,
                                           std::span<const Range>, uint32_t, uint32_t)>;
/// The SpatialDispatch that records through runner (a backend's KernelRunner, kernel_runner.h).
template <typename Range, typename Runner>
SpatialDispatch<Range> spatial_dispatch(const Runner& runner) {
  return [runner](const std::string& source, std::span<const std::byte> words,
                  std::span<const Range> tensors, uint32_t groups_x, uint32_t groups_y) {
    runner.dispatch(source, words, tensors, groups_x, groups_y);
  };
}

/// The spatial extents of shape [N, C, *spatial] as three, front-padded with 1.
inline std::array<uint64_t, 3> spatial3(const Shape& shape) {
  std::array<uint64_t, 3> extents{1, 1, 1};
  const std::size_t spatial = shape.rank() - 2;
  for (std::size_t i = 0; i < spatial; ++i)
    extents[3 - spatial + i] = static_cast<uint64_t>(shape[i + 2]);
  return extents;
}

/// A per-spatial-dim vector as three, front-padded with fill.
inline std::array<uint64_t, 3> per_dim3(const std::vector<int64_t>& values, uint64_t fill) {
  std::array<uint64_t, 3> padded{fill, fill, fill};
  for (std::size_t i = 0; i < values.size(); ++i)
    padded[3 - values.size() + i] = static_cast<uint64_t>(values[i]);
  return padded;
}

/// The largest kernel extent, stride, padding, dilation or divisor the kernels take: their int
/// arithmetic (o s - p + k d and the like) then stays below 2^31.
constexpr uint64_t kMaxGeometry = (uint64_t{1} << 29) - 1;

/// Whether every value of groups is at most kMaxGeometry.
inline bool geometry_fits(std::initializer_list<std::array<uint64_t, 3>> groups) {
  for (const std::array<uint64_t, 3>& group : groups)
    for (const uint64_t value : group)
      if (value > kMaxGeometry) return false;
  return true;
}

/// words extended by the three values of each of groups, in order, as 32-bit parameter words.
inline void append_words(std::vector<uint32_t>& words,
                         std::initializer_list<std::array<uint64_t, 3>> groups) {
  for (const std::array<uint64_t, 3>& group : groups)
    for (const uint64_t value : group)
      words.push_back(static_cast<uint32_t>(value));
}

/// The product of three extents.
inline uint64_t volume3(const std::array<uint64_t, 3>& extents) {
  return extents[0] * extents[1] * extents[2];
}

}  // namespace ember::shader
