// The dispatch of the shader backends' softmax and log-softmax (vulkan's and wgpu's
// softmax_sources), written once: x seen as [rows, n, inner] around the softmax dim, one
// workgroup of kSoftmaxWorkgroup invocations a lane (a row along the dim, strided by inner when
// the dim is not the last), which finds the lane's maximum and the sum of exp(x - max) through
// workgroup memory, then writes each element; lanes of at most kSoftmaxShortLane elements one
// invocation a lane, in order (a workgroup would leave most of its invocations idle). Only the
// kernels' sources differ between the backends. Both kernels read the same parameter words:
// lanes, n, inner, log (1 for log-softmax).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/shader/device_limits.h"
#include "backends/shader/lane_geometry.h"
#include "ir/ops.h"

namespace ember::shader {

/// The invocations of the softmax kernels' workgroup (a power of two: the trees halve it).
constexpr uint64_t kSoftmaxWorkgroup = 256;
/// The longest lane that one invocation takes alone.
constexpr uint64_t kSoftmaxShortLane = 64;

/// x as [rows, n, inner] around the softmax dim.
struct SoftmaxLanes : LaneGeometry {
  static SoftmaxLanes of(const ir::Softmax& softmax, const Shape& shape) {
    return {LaneGeometry::around(shape, softmax.dim)};
  }

  /// Whether each lane is one invocation's.
  bool short_lanes() const { return n <= kSoftmaxShortLane; }
  /// The workgroups that take the lanes, at most max_groups (the kernels loop over the rest).
  uint32_t groups(uint32_t max_groups) const {
    const uint64_t wanted =
        short_lanes() ? (lanes() + kSoftmaxWorkgroup - 1) / kSoftmaxWorkgroup : lanes();
    return static_cast<uint32_t>(std::min<uint64_t>(wanted, max_groups));
  }
  /// The turns of an invocation's loops: its lanes times three passes over a lane's elements (and
  /// the two trees a lane of a workgroup); none without lanes.
  uint64_t turns(uint32_t max_groups) const {
    if (lanes() == 0) return 0;
    const uint64_t invocations = uint64_t{groups(max_groups)} * kSoftmaxWorkgroup;
    if (short_lanes()) return ((lanes() + invocations - 1) / invocations) * (1 + 3 * n);
    const uint64_t per_group = (lanes() + max_groups - 1) / max_groups;
    const uint64_t tree = 2 * 8;
    return per_group * (1 + 3 * ((n + kSoftmaxWorkgroup - 1) / kSoftmaxWorkgroup) + tree);
  }
};

/// Whether the softmax kernels take softmax of x on a device of limits: x within one binding,
/// fewer than 2^31 elements (the kernels count in 32 bits), and loops within the device's turns
/// (on lavapipe, lanes of up to some five million elements). The dtype is the backend's to check.
inline bool softmax_passes_take(const ir::Softmax& softmax, const ir::TensorMeta& x,
                                const DeviceLimits& limits) {
  const auto elements = static_cast<uint64_t>(x.shape.num_elements());
  return elements * dtype_size(x.dtype) <= limits.max_binding && elements < (uint64_t{1} << 31) &&
         SoftmaxLanes::of(softmax, x.shape).turns(limits.max_groups) <= limits.max_loop_turns;
}

/// Records softmax over x into out (both contiguous, x's shape): short_source where lanes are
/// short (one invocation a lane), else workgroup_source (one workgroup a lane), over
/// SoftmaxLanes::groups workgroups. dispatch(source, parameters, tensors, workgroups) records one
/// kernel.
template <typename Range, typename Dispatch>
void record_softmax(const ir::Softmax& softmax, const ir::TensorMeta& x_meta, const Range& x,
                    const Range& out, const std::string& short_source,
                    const std::string& workgroup_source, uint32_t max_groups,
                    const Dispatch& dispatch) {
  const SoftmaxLanes lanes = SoftmaxLanes::of(softmax, x_meta.shape);
  if (lanes.lanes() == 0 || lanes.n == 0) return;
  const std::vector<uint32_t> words = {
      static_cast<uint32_t>(lanes.lanes()), static_cast<uint32_t>(lanes.n),
      static_cast<uint32_t>(lanes.inner), static_cast<uint32_t>(softmax.log ? 1 : 0)};
  const Range tensors[] = {x, out};
  dispatch(lanes.short_lanes() ? short_source : workgroup_source, std::as_bytes(std::span(words)),
           std::span<const Range>(tensors), lanes.groups(max_groups));
}

}  // namespace ember::shader
