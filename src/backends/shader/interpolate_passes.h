// The shader backends' interpolation kernels (vulkan's and wgpu's interpolate_kernel), written
// once but for their sources: which cases they take, their parameter words, their workgroups and
// their dispatch. The taps follow ndarray's interpolate_plan.h, each kernel finding them itself
// from the ratio that plan starts from (ndarray::interpolate::source_ratio, in the same float
// arithmetic), so that nothing but the parameter block goes up with a dispatch.
//
// Interpolate: one invocation per output element sums its taps' products (at most 4 x 4 for
// bicubic, 2 x 2 x 2 for trilinear) with the weights' products. InterpolateGrad gathers, so that
// no two invocations write one element and the sums come in a fixed order (no atomics): one
// invocation per input element finds, along each spatial dim, the output indices whose taps
// read it (their taps' base index rises with the output index, so a binary search bounds them)
// and adds each one's gradient times its weights on the element (the sum of its taps' weights
// there: the clamped cubic taps may read one index twice).
//
// The kernels read the same words: count (elements the dispatch writes), align_corners, then
// three words each (front-padded to 3 spatial dims) of x's extents and the output's, the mode of
// each dim (kNearestTaps, kLinearTaps, kCubicTaps; a padded dim, and a linear dim of equal sizes,
// which PyTorch copies, read the nearest tap at ratio 1), and two words a dim of its ratio: a
// float's bits (and 0), or a double's low and high words when the tensors are f64.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/ndarray/interpolate_plan.h"
#include "backends/shader/spatial_dispatch.h"
#include "ember/dtype.h"
#include "ember/shape.h"
#include "ir/ops.h"

namespace ember::shader {

/// How a kernel finds the taps along a dim (its parameter word).
constexpr uint32_t kNearestTaps = 0;
constexpr uint32_t kLinearTaps = 1;
constexpr uint32_t kCubicTaps = 2;

/// A backend's kernel sources of Interpolate and InterpolateGrad for the tensors' dtype (f32, and
/// f64 and f16 where the limits say the device computes them); the words are InterpolateGeometry's,
/// the input bound at 1, the output at 2.
class InterpolateSources {
 public:
  virtual ~InterpolateSources() = default;
  /// Interpolate of x into y.
  virtual std::string forward(DType dtype) const = 0;
  /// InterpolateGrad of grad_output into dx.
  virtual std::string gradient(DType dtype) const = 0;
};

/// An interpolation from x's spatial extents to the output's, as the kernels see it.
struct InterpolateGeometry {
  std::array<uint64_t, 3> in{1, 1, 1};
  std::array<uint64_t, 3> out{1, 1, 1};
  std::array<uint32_t, 3> mode{kNearestTaps, kNearestTaps, kNearestTaps};
  std::array<double, 3> ratio{1.0, 1.0, 1.0};
  bool align_corners = false;

  /// op from x to output, coordinates in dtype's compute precision (ndarray's).
  static InterpolateGeometry of(const ir::Interpolate& op, const Shape& x, const Shape& output,
                                DType dtype) {
    InterpolateGeometry g;
    g.in = spatial3(x);
    g.out = spatial3(output);
    g.align_corners = op.align_corners;
    const std::size_t spatial = x.rank() - 2;
    for (std::size_t dim = 0; dim < spatial; ++dim) {
      const std::size_t axis = 3 - spatial + dim;
      const int64_t in = x[dim + 2];
      const int64_t out = output[dim + 2];
      // PyTorch copies a linear dim of equal sizes: ndarray's nearest tap at ratio 1.
      if (op.mode == ir::InterpolateMode::Linear && in == out) continue;
      g.mode[axis] = mode_word(op.mode);
      g.ratio[axis] = ndarray::interpolate::source_ratio(op, dim, in, out, dtype);
    }
    return g;
  }

  /// Whether every ratio is finite (an extreme scale factor's is not: the host's rules for it).
  bool ratios_finite() const {
    return std::all_of(ratio.begin(), ratio.end(), [](double r) { return std::isfinite(r); });
  }

  /// The loop turns of one invocation of the gradient kernel: along each dim, at most `reach` of
  /// the output indices read one input index, and the kernel weighs each (kWeighTurns) at every
  /// level of its loop nest, after two binary searches a dim.
  uint64_t gradient_turns(const std::array<uint64_t, 3>& reach) const {
    constexpr uint64_t kWeighTurns = 5;
    constexpr uint64_t kSearchTurns = 6 * 33;
    return kSearchTurns +
           kWeighTurns * (reach[0] + reach[0] * reach[1] + reach[0] * reach[1] * reach[2]);
  }

  /// The parameter words of a kernel writing count elements of dtype.
  std::vector<uint32_t> words(uint64_t count, DType dtype) const {
    std::vector<uint32_t> w = {static_cast<uint32_t>(count), align_corners ? 1u : 0u};
    append_words(w, {in, out});
    w.insert(w.end(), mode.begin(), mode.end());
    for (const double r : ratio) {
      uint32_t halves[2] = {0, 0};
      if (dtype == DType::F64) {
        std::memcpy(halves, &r, sizeof(r));
      } else {
        const auto single = static_cast<float>(r);  // exact: the ratio was computed in float
        std::memcpy(halves, &single, sizeof(single));
      }
      w.insert(w.end(), halves, halves + 2);
    }
    return w;
  }

 private:
  static uint32_t mode_word(ir::InterpolateMode mode) {
    switch (mode) {
      case ir::InterpolateMode::Nearest:
        return kNearestTaps;
      case ir::InterpolateMode::Linear:
        return kLinearTaps;
      case ir::InterpolateMode::Cubic:
        return kCubicTaps;
    }
    return kNearestTaps;  // unreachable after ir::infer, which rejects unknown modes
  }
};

/// Along each spatial dim (front-padded to 3), the most output indices whose taps read one input
/// index: ndarray's plans, each output index counted once for an input index however many of its
/// taps read it.
inline std::array<uint64_t, 3> gradient_reach(const ir::Interpolate& op, const Shape& x,
                                              const Shape& output, DType dtype) {
  std::array<uint64_t, 3> reach{1, 1, 1};
  const std::vector<ndarray::interpolate::DimPlan> plans =
      ndarray::interpolate::plans_for(op, x, output, dtype);
  for (std::size_t dim = 0; dim < plans.size(); ++dim) {
    std::vector<uint64_t> readers(static_cast<std::size_t>(plans[dim].in), 0);
    for (const ndarray::interpolate::Taps& taps : plans[dim].taps)
      for (std::size_t t = 0; t < taps.count; ++t)
        if (std::find(taps.index.begin(), taps.index.begin() + static_cast<std::ptrdiff_t>(t),
                      taps.index[t]) == taps.index.begin() + static_cast<std::ptrdiff_t>(t))
          ++readers[static_cast<std::size_t>(taps.index[t])];
    reach[3 - plans.size() + dim] = *std::max_element(readers.begin(), readers.end());
  }
  return reach;
}

/// One dispatch of an interpolation kernel: its workgroups and words.
struct InterpolateDispatch {
  SpatialGroups groups;
  std::vector<uint32_t> words;
};

/// Interpolate's dispatch of op from x into y (one invocation an output element, at most 4 x 4
/// taps); nullopt where the kernel does not take it (spatial_tensors_fit, f16 included; a ratio
/// that is not finite).
inline std::optional<InterpolateDispatch> interpolate_dispatch(const SpatialLimits& limits,
                                                               const ir::Interpolate& op,
                                                               const ir::TensorMeta& x,
                                                               const ir::TensorMeta& y) {
  const ir::TensorMeta metas[] = {x, y};
  if (!spatial_tensors_fit(limits, metas, true)) return std::nullopt;
  const InterpolateGeometry g = InterpolateGeometry::of(op, x.shape, y.shape, x.dtype);
  const auto count = static_cast<uint64_t>(y.shape.num_elements());
  const std::optional<SpatialGroups> groups = groups_per_element(count, limits.max_groups);
  if (!g.ratios_finite() || !groups) return std::nullopt;
  return InterpolateDispatch{*groups, g.words(count, x.dtype)};
}

/// InterpolateGrad's dispatch of op from grad_output into dx (one invocation an element of dx);
/// nullopt where the kernel does not take it (as interpolate_dispatch, or more outputs reading
/// one input element than an invocation may loop over: a large upsampling's).
inline std::optional<InterpolateDispatch> interpolate_grad_dispatch(
    const SpatialLimits& limits, const ir::InterpolateGrad& op, const ir::TensorMeta& grad_output,
    const ir::TensorMeta& dx) {
  const ir::TensorMeta metas[] = {grad_output, dx};
  if (!spatial_tensors_fit(limits, metas, true)) return std::nullopt;
  const ir::Interpolate& forward = op.interpolate;
  const InterpolateGeometry g =
      InterpolateGeometry::of(forward, dx.shape, grad_output.shape, dx.dtype);
  const auto count = static_cast<uint64_t>(dx.shape.num_elements());
  const std::optional<SpatialGroups> groups = groups_per_element(count, limits.max_groups);
  // wgpu's kernel writes f16 two elements an invocation (a word of them).
  const uint64_t elements_per_invocation = dx.dtype == DType::F16 ? 2 : 1;
  if (!g.ratios_finite() || !groups ||
      elements_per_invocation *
              g.gradient_turns(gradient_reach(forward, dx.shape, grad_output.shape, dx.dtype)) >
          limits.max_loop_turns)
    return std::nullopt;
  return InterpolateDispatch{*groups, g.words(count, dx.dtype)};
}

/// The interpolation kernels of a backend: its sources and its dispatch.
template <typename Range>
class InterpolateKernels {
 public:
  InterpolateKernels(SpatialLimits limits, std::unique_ptr<const InterpolateSources> sources,
                     SpatialDispatch<Range> dispatch)
      : limits_(limits), sources_(std::move(sources)), dispatch_(std::move(dispatch)) {}

  /// Whether the kernel takes op from x into y.
  bool takes(const ir::Interpolate& op, const ir::TensorMeta& x, const ir::TensorMeta& y) const {
    return interpolate_dispatch(limits_, op, x, y).has_value();
  }
  /// op from x into y (takes holds).
  void run(const ir::Interpolate& op, const ir::TensorMeta& x, const ir::TensorMeta& y,
           const Range& from, const Range& to) {
    record(sources_->forward(x.dtype), *interpolate_dispatch(limits_, op, x, y), from, to);
  }

  /// Whether the kernel takes op from grad_output into dx.
  bool takes(const ir::InterpolateGrad& op, const ir::TensorMeta& grad_output,
             const ir::TensorMeta& dx) const {
    return interpolate_grad_dispatch(limits_, op, grad_output, dx).has_value();
  }
  /// op from grad_output into dx (takes holds).
  void run(const ir::InterpolateGrad& op, const ir::TensorMeta& grad_output,
           const ir::TensorMeta& dx, const Range& from, const Range& to) {
    record(sources_->gradient(dx.dtype), *interpolate_grad_dispatch(limits_, op, grad_output, dx),
           from, to);
  }

 private:
  void record(const std::string& source, const InterpolateDispatch& dispatch, const Range& from,
              const Range& to) {
    const Range tensors[] = {from, to};
    dispatch_(source, std::as_bytes(std::span(dispatch.words)), tensors, dispatch.groups.x,
              dispatch.groups.y);
  }

  SpatialLimits limits_;
  std::unique_ptr<const InterpolateSources> sources_;
  SpatialDispatch<Range> dispatch_;
};

}  // namespace ember::shader
