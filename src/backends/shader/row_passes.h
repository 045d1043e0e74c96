// The dispatch of the shader backends' fused row ops (vulkan's and wgpu's row_sources), written
// once: ir::LayerNorm (and rms), ir::LayerNormGrad, ir::CrossEntropy, ir::CrossEntropyGrad and
// ir::SoftmaxGrad on f32, one workgroup of kRowWorkgroup invocations a row (looping over rows past
// the dispatch), the row's sums through a tree in workgroup memory, two passes over the row at
// most: the statistics, then the writes. LayerNorm's mean and variance come from one pass of sums
// shifted by the row's first element (which keeps the variance's cancellation small), and
// LayerNormGrad's weight and bias gradients from a second kernel of one invocation a column. Only
// the kernels' sources differ between the backends; this file says which cases they take (the
// backend's runs_fused_rows), their parameter words and their bindings.
//
// Parameter words, every kernel: rows (lanes), n (a row's length), inner (the stride of a row's
// elements: 1 but for SoftmaxGrad along another dim than the last), flags (kRowFlag*), a float's
// bits (LayerNorm's eps, CrossEntropy's label smoothing), ignore_index's low and high words, the
// words of a target (1 for i32, 2 for i64).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "backends/shader/device_limits.h"
#include "backends/shader/lane_geometry.h"
#include "ir/fused_rows.h"
#include "ir/ops.h"

namespace ember::shader {

/// The invocations of a row kernel's workgroup (a power of two: the trees halve it).
constexpr uint64_t kRowWorkgroup = 256;

/// The flags word's bits.
constexpr uint32_t kRowFlagWeight = 1;  ///< a weight (LayerNorm's [N], CrossEntropy's [C])
constexpr uint32_t kRowFlagBias = 2;    ///< LayerNorm's bias
constexpr uint32_t kRowFlagRms = 4;     ///< rms_norm: no mean
constexpr uint32_t kRowFlagLog = 8;     ///< SoftmaxGrad of a log-softmax

/// The row kernels.
enum class RowKernel : uint8_t {
  LayerNorm,
  LayerNormGradRows,     ///< grad_x, one workgroup a row
  LayerNormGradColumns,  ///< grad_weight and grad_bias, one invocation a column
  CrossEntropy,
  CrossEntropyGrad,
  SoftmaxGrad,
};
/// How many kernels RowKernel names.
constexpr std::size_t kRowKernels = 6;

/// A tensor a row kernel binds: its name in the kernels' sources, and whether it holds 32-bit
/// words (the targets, the bad-target word) rather than f32.
struct RowBinding {
  const char* name;
  bool words = false;
};

/// The tensors kernel binds after the parameter words, in order: its inputs, then its outputs (a
/// tensor the op lacks is bound to a stand-in the kernel never touches: x for an input, another
/// output for an output). The cross-entropy kernels set bad's first word to 1 for a target
/// outside [0, C) that is not ignore_index; the backend then sends the op to the host (whose
/// InvalidArgument names it).
inline std::vector<RowBinding> row_kernel_bindings(RowKernel kernel) {
  switch (kernel) {
    case RowKernel::LayerNorm:
      return {{"x"}, {"w"}, {"b"}, {"y"}, {"mean"}, {"rstd_out"}};
    case RowKernel::LayerNormGradRows:
      return {{"x"}, {"w"}, {"mean"}, {"rstd"}, {"dy"}, {"dx"}};
    case RowKernel::LayerNormGradColumns:
      return {{"x"}, {"mean"}, {"rstd"}, {"dy"}, {"dw"}, {"db"}};
    case RowKernel::CrossEntropy:
      return {{"x"}, {"t", true}, {"w"}, {"loss"}, {"lse"}, {"bad", true}};
    case RowKernel::CrossEntropyGrad:
      return {{"x"}, {"t", true}, {"w"}, {"lse"}, {"grad"}, {"dx"}, {"bad", true}};
    case RowKernel::SoftmaxGrad:
      return {{"y"}, {"dy"}, {"dx"}};
  }
  return {};
}

/// A backend's texts of the row kernels, in its shading language.
struct RowSources {
  std::string header;     ///< what precedes the tensors' bindings (the parameter words' binding)
  std::string trees;      ///< tree_sum and tree_max over the workgroup, and larger (NaN wins)
  std::string target_of;  ///< target_of(r): row r's class, -1 if ignored, -2 if bad (binding t)
  std::string main;       ///< the start of main: the parameter words every kernel reads by name
  std::array<std::string, kRowKernels> bodies;  ///< the rest of each kernel's main, by RowKernel
};

/// kernel's source from sources, each tensor it binds declared by declare(binding, RowBinding)
/// (bindings 1, 2, ...: 0 is the parameter words').
template <typename Declare>
std::string row_kernel_source(RowKernel kernel, const RowSources& sources, const Declare& declare) {
  std::string text = sources.header;
  uint32_t binding = 1;
  for (const RowBinding& tensor : row_kernel_bindings(kernel))
    text += declare(binding++, tensor);
  text += sources.trees;
  if (kernel == RowKernel::CrossEntropy || kernel == RowKernel::CrossEntropyGrad)
    text += sources.target_of;
  return text + sources.main + sources.bodies[static_cast<std::size_t>(kernel)];
}

/// The rows of a fused row op: the last dim of x, or the softmax dim of SoftmaxGrad's y.
inline LaneGeometry row_lanes(const ir::Op& op, const Shape& x) {
  if (const auto* grad = std::get_if<ir::SoftmaxGrad>(&op))
    return LaneGeometry::around(x, grad->softmax.dim);
  return LaneGeometry::around(x, static_cast<int64_t>(x.rank()) - 1);
}

/// The workgroups of a dispatch over lanes, one a lane, at most max_groups.
inline uint32_t row_groups(const LaneGeometry& lanes, uint32_t max_groups) {
  return static_cast<uint32_t>(std::min<uint64_t>(lanes.lanes(), max_groups));
}

/// The loop turns of an invocation of a row kernel: its lanes times passes over a lane's share
/// and trees of eight halvings.
inline uint64_t row_turns(const LaneGeometry& lanes, uint32_t max_groups, uint64_t passes,
                          uint64_t trees) {
  const uint64_t groups = row_groups(lanes, max_groups);
  const uint64_t per_group = (lanes.lanes() + groups - 1) / groups;
  return per_group * (1 + passes * ((lanes.n + kRowWorkgroup - 1) / kRowWorkgroup) + trees * 8);
}

/// The workgroups of LayerNormGrad's column kernel: one invocation a column, at most max_groups.
inline uint32_t column_groups(const LaneGeometry& lanes, uint32_t max_groups) {
  return static_cast<uint32_t>(
      std::min<uint64_t>((lanes.n + kRowWorkgroup - 1) / kRowWorkgroup, max_groups));
}

/// The loop turns of an invocation of the column kernel: its columns times the rows.
inline uint64_t column_turns(const LaneGeometry& lanes, uint32_t max_groups) {
  const uint64_t invocations = uint64_t{column_groups(lanes, max_groups)} * kRowWorkgroup;
  return ((lanes.n + invocations - 1) / invocations) * (1 + lanes.rows);
}

/// Whether the row kernels take op (a fused row op; no for any other) on inputs as ir::infer
/// accepts them, on a device of limits: f32, rows of at least one element, i32 or i64 targets,
/// every tensor within one binding and below 2^31 elements (the kernels count in 32 bits), and
/// loops within the device's turns. LayerNorm and CrossEntropy are taken exactly where their
/// gradient ops are, so that the backward of a fused forward runs on the device too.
inline bool row_passes_take(const ir::Op& op, std::span<const ir::TensorMeta> inputs,
                            const DeviceLimits& limits) {
  if (!ir::is_fused_row_op(op) || inputs.empty() || inputs[0].dtype != DType::F32) return false;
  for (const ir::TensorMeta& input : inputs) {
    const auto elements = static_cast<uint64_t>(input.shape.num_elements());
    if (elements * dtype_size(input.dtype) > limits.max_binding || elements >= (uint64_t{1} << 31))
      return false;
  }
  const LaneGeometry lanes = row_lanes(op, inputs[0].shape);
  if (lanes.lanes() == 0 || lanes.n == 0) return false;
  const bool cross_entropy = std::holds_alternative<ir::CrossEntropy>(op) ||
                             std::holds_alternative<ir::CrossEntropyGrad>(op);
  if (cross_entropy && inputs[1].dtype != DType::I32 && inputs[1].dtype != DType::I64) return false;
  const bool layer_norm =
      std::holds_alternative<ir::LayerNorm>(op) || std::holds_alternative<ir::LayerNormGrad>(op);
  // Every kernel: two passes over a row; the trees of LayerNorm's, SoftmaxGrad's and
  // CrossEntropyGrad's one, CrossEntropy's two; LayerNormGrad's columns over every row.
  const uint32_t groups = limits.max_groups;
  return row_turns(lanes, groups, 2, cross_entropy ? 2 : 1) <= limits.max_loop_turns &&
         (!layer_norm || column_turns(lanes, groups) <= limits.max_loop_turns);
}

/// Records the kernels of fused row ops. Range is a backend's bound slice of a buffer;
/// dispatch(kernel, words, tensors, groups) records one kernel.
template <typename Range, typename Dispatch>
class RowPasses {
 public:
  /// inputs and outputs: op's (their slices and, for the inputs, their metadata); bad_target:
  /// a word of zero that the cross-entropy kernels set for a bad target (unused by the others).
  RowPasses(std::span<const Range> inputs, std::span<const ir::TensorMeta> metas,
            std::span<const Range> outputs, const Range& bad_target, uint32_t max_groups,
            const Dispatch& dispatch)
      : in_(inputs),
        metas_(metas),
        out_(outputs),
        bad_target_(bad_target),
        max_groups_(max_groups),
        dispatch_(dispatch) {}

  /// Records op (row_passes_take holds).
  void record(const ir::Op& op) {
    std::visit([&](const auto& typed) { record_typed(typed, op); }, op);
  }

 private:
  template <typename Op>
  requires(!ir::FusedRowOp<Op>) void record_typed(const Op& /*typed*/, const ir::Op& /*op*/) {}

  void record_typed(const ir::LayerNorm& norm, const ir::Op& op) {
    const std::size_t bias = norm.weight ? 2 : 1;
    const Range tensors[] = {
        in_[0],     norm.weight ? in_[1] : in_[0], norm.bias ? in_[bias] : in_[0], out_[0], out_[1],
        out_.back()};
    run(RowKernel::LayerNorm,
        words(op, norm_flags(norm), std::bit_cast<uint32_t>(static_cast<float>(norm.eps))),
        tensors);
  }

  void record_typed(const ir::LayerNormGrad& grad, const ir::Op& op) {
    const ir::LayerNorm& norm = grad.norm;
    const std::size_t statistics = norm.weight ? 2 : 1;
    const Range& mean = in_[statistics];
    const Range& rstd = in_[norm.rms ? statistics : statistics + 1];
    const std::vector<uint32_t> parameters = words(op, norm_flags(norm), 0);
    const Range rows[] = {in_[0], norm.weight ? in_[1] : in_[0], mean, rstd, in_.back(), out_[0]};
    run(RowKernel::LayerNormGradRows, parameters, rows);
    if (out_.size() == 1) return;  // no weight nor bias to differentiate
    const Range columns[] = {in_[0], mean, rstd, in_.back(), out_[1], out_.back()};
    dispatch_(RowKernel::LayerNormGradColumns, std::as_bytes(std::span(parameters)),
              std::span<const Range>(columns), column_groups(lanes(op), max_groups_));
  }

  void record_typed(const ir::CrossEntropy& loss, const ir::Op& op) {
    const Range tensors[] = {in_[0],  in_[1],  loss.weight ? in_[2] : in_[0],
                             out_[0], out_[1], bad_target_};
    run(RowKernel::CrossEntropy, loss_words(loss, op), tensors);
  }

  void record_typed(const ir::CrossEntropyGrad& grad, const ir::Op& op) {
    const std::size_t lse = grad.loss.weight ? 3 : 2;
    const Range tensors[] = {in_[0],     in_[1],       grad.loss.weight ? in_[2] : in_[0],
                             in_[lse],   in_[lse + 1], out_[0],
                             bad_target_};
    run(RowKernel::CrossEntropyGrad, loss_words(grad.loss, op), tensors);
  }

  void record_typed(const ir::SoftmaxGrad& grad, const ir::Op& op) {
    const Range tensors[] = {in_[0], in_[1], out_[0]};
    run(RowKernel::SoftmaxGrad, words(op, grad.softmax.log ? kRowFlagLog : 0, 0), tensors);
  }

  static uint32_t norm_flags(const ir::LayerNorm& norm) {
    return (norm.weight ? kRowFlagWeight : 0) | (norm.bias ? kRowFlagBias : 0) |
           (norm.rms ? kRowFlagRms : 0);
  }

  LaneGeometry lanes(const ir::Op& op) const { return row_lanes(op, metas_[0].shape); }

  /// The parameter words of op (ignore_index and the targets' words left 0).
  std::vector<uint32_t> words(const ir::Op& op, uint32_t flags, uint32_t real) const {
    const LaneGeometry l = lanes(op);
    return {static_cast<uint32_t>(l.lanes()),
            static_cast<uint32_t>(l.n),
            static_cast<uint32_t>(l.inner),
            flags,
            real,
            0,
            0,
            0};
  }

  std::vector<uint32_t> loss_words(const ir::CrossEntropy& loss, const ir::Op& op) const {
    std::vector<uint32_t> w =
        words(op, loss.weight ? kRowFlagWeight : 0,
              std::bit_cast<uint32_t>(static_cast<float>(loss.label_smoothing)));
    const auto ignore = static_cast<uint64_t>(loss.ignore_index);
    w[5] = static_cast<uint32_t>(ignore);
    w[6] = static_cast<uint32_t>(ignore >> 32);
    w[7] = static_cast<uint32_t>(dtype_size(metas_[1].dtype) / 4);
    return w;
  }

  /// kernel over one workgroup a row.
  void run(RowKernel kernel, const std::vector<uint32_t>& parameters,
           std::span<const Range> tensors) {
    const LaneGeometry l{static_cast<uint64_t>(parameters[0]), static_cast<uint64_t>(parameters[1]),
                         1};
    dispatch_(kernel, std::as_bytes(std::span(parameters)), tensors, row_groups(l, max_groups_));
  }

  std::span<const Range> in_;
  std::span<const ir::TensorMeta> metas_;
  std::span<const Range> out_;
  Range bad_target_;
  uint32_t max_groups_;
  const Dispatch& dispatch_;
};

}  // namespace ember::shader
