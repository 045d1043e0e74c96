// ConvPoolKernels: the convolution and pooling kernels of the shader backends (Conv in both
// directions, ConvWeightGrad, Pool, AdaptivePool, AvgPoolGrad, AdaptiveAvgPoolGrad), written
// once over a backend's kernel sources (ConvPoolSources: GLSL for vulkan, WGSL for wgpu) and its
// dispatch. The geometry is conv_passes.h's and pool_passes.h's. Each op has takes (false: the
// host runs it) and run (takes holds; the outputs are allocated, contiguous).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/shader/conv_passes.h"
#include "backends/shader/pool_passes.h"
#include "backends/shader/spatial_dispatch.h"
#include "ember/error.h"
#include "ir/ops.h"

namespace ember::shader {

/// A backend's kernel sources of the convolution and pooling ops, each for x's dtype (f32, or
/// f64 where the limits say the device computes it); the words and bindings are those of
/// conv_passes.h and pool_passes.h, tensors bound in the op's order, then the outputs.
class ConvPoolSources {
 public:
  virtual ~ConvPoolSources() = default;
  /// Conv of (x, weight[, bias]) into y: the tiled kernel or the direct one.
  virtual std::string conv(DType dtype, bool bias, bool tiled) const = 0;
  /// ConvWeightGrad of (x, grad_output) into the weight's gradient.
  virtual std::string conv_weight_grad(DType dtype) const = 0;
  /// Pool or AdaptivePool of x into values (and, for Max, indices).
  virtual std::string pool(DType dtype, ir::PoolOp op) const = 0;
  /// AvgPoolGrad or AdaptiveAvgPoolGrad of grad_output into dx.
  virtual std::string avg_pool_grad(DType dtype) const = 0;
};

/// Whether the tiled convolution kernel runs on a device (cpu: a CPU implementation such as
/// lavapipe): EMBER_SHADER_CONV=tiled or direct says, else a GPU runs it and a CPU device the
/// direct kernel. Note: lavapipe runs a workgroup's barriers as switches between its invocations,
/// and its tiled convolutions (as its tiled matmul) ran 4-10x slower than the direct kernel there
/// (docs/backends/vulkan.md); the variable lets both kernels be compared on one device, and the
/// tests run the tiled one on lavapipe. InvalidArgument for another value.
inline bool tiled_conv_on(bool cpu) {
  const char* value = std::getenv("EMBER_SHADER_CONV");
  if (value == nullptr || *value == '\0') return !cpu;
  const std::string choice = value;
  if (choice == "tiled" || choice == "direct") return choice == "tiled";
  throw InvalidArgument("[conv] EMBER_SHADER_CONV is '" + choice +
                        "': 'tiled', 'direct', or unset (tiled on GPUs, direct on CPU devices)");
}

/// Ops the convolution and pooling kernels have run in this process, for tests that check an op
/// ran on the device rather than on the host.
inline std::atomic<uint64_t>& conv_pool_kernel_runs() {
  static std::atomic<uint64_t> runs{0};
  return runs;
}

template <typename Range>
class ConvPoolKernels {
 public:
  /// dispatch(source, words, tensors, groups_x, groups_y) records one kernel.
  using Dispatch = SpatialDispatch<Range>;

  ConvPoolKernels(SpatialLimits limits, std::unique_ptr<const ConvPoolSources> sources,
                  Dispatch dispatch)
      : limits_(limits), sources_(std::move(sources)), dispatch_(std::move(dispatch)) {}

  bool takes(const ir::Conv& op, std::span<const ir::TensorMeta> inputs,
             std::span<const ir::TensorMeta> outputs) const {
    return conv_dispatch(limits_, op, inputs, outputs[0]).has_value();
  }
  void run(const ir::Conv& op, std::span<const Range> inputs, std::span<const ir::TensorMeta> metas,
           std::span<const Range> outputs, std::span<const ir::TensorMeta> output_metas) {
    const ConvDispatch dispatch = *conv_dispatch(limits_, op, metas, output_metas[0]);
    record(sources_->conv(output_metas[0].dtype, inputs.size() > 2, dispatch.tiled),
           dispatch.groups, dispatch.words, inputs, outputs);
  }

  bool takes(const ir::ConvWeightGrad& op, std::span<const ir::TensorMeta> inputs,
             std::span<const ir::TensorMeta> outputs) const {
    return conv_weight_grad_groups(limits_, op, inputs, outputs[0]).has_value();
  }
  void run(const ir::ConvWeightGrad& op, std::span<const Range> inputs,
           std::span<const ir::TensorMeta> metas, std::span<const Range> outputs,
           std::span<const ir::TensorMeta> output_metas) {
    const ir::TensorMeta& out = output_metas[0];
    record(sources_->conv_weight_grad(out.dtype), *conv_weight_grad_groups(limits_, op, metas, out),
           conv_words(op.geometry, metas[0].shape, op.weight_shape, metas[1].shape,
                      static_cast<uint64_t>(out.shape.num_elements())),
           inputs, outputs);
  }

  template <typename Op>
  requires(std::is_same_v<Op, ir::Pool> || std::is_same_v<Op, ir::AdaptivePool>) bool takes(
      const Op& op, std::span<const ir::TensorMeta> inputs,
      std::span<const ir::TensorMeta> outputs) const {
    return pool_dispatch(op, inputs[0], outputs).has_value();
  }
  template <typename Op>
  requires(std::is_same_v<Op, ir::Pool> || std::is_same_v<Op, ir::AdaptivePool>) void run(
      const Op& op, std::span<const Range> inputs, std::span<const ir::TensorMeta> metas,
      std::span<const Range> outputs, std::span<const ir::TensorMeta> output_metas) {
    const auto [groups, words] = *pool_dispatch(op, metas[0], output_metas);
    record(sources_->pool(metas[0].dtype, op.op), groups, words, inputs, outputs);
  }

  template <typename Op>
  requires(std::is_same_v<Op, ir::AvgPoolGrad> ||
           std::is_same_v<Op, ir::AdaptiveAvgPoolGrad>) bool takes(const Op& op,
                                                                   std::span<const ir::TensorMeta>
                                                                       inputs,
                                                                   std::span<const ir::TensorMeta>
                                                                       outputs) const {
    return pool_grad_dispatch(op, inputs[0], outputs[0]).has_value();
  }
  template <typename Op>
  requires(
      std::is_same_v<Op, ir::AvgPoolGrad> ||
      std::is_same_v<Op, ir::AdaptiveAvgPoolGrad>) void run(const Op& op,
                                                            std::span<const Range> inputs,
                                                            std::span<const ir::TensorMeta> metas,
                                                            std::span<const Range> outputs,
                                                            std::span<const ir::TensorMeta>
                                                                output_metas) {
    const auto [groups, words] = *pool_grad_dispatch(op, metas[0], output_metas[0]);
    record(sources_->avg_pool_grad(metas[0].dtype), groups, words, inputs, outputs);
  }

 private:
  using Dispatched = std::pair<SpatialGroups, std::vector<uint32_t>>;

  /// A forward pooling's workgroups and words; nullopt where the kernel does not take it (also
  /// a max's index of a dtype other than i32 and i64, or past one binding).
  template <typename Op>
  std::optional<Dispatched> pool_dispatch(const Op& op, const ir::TensorMeta& x,
                                          std::span<const ir::TensorMeta> outputs) const {
    const PoolGeometry g = PoolGeometry::of(op, x.shape, outputs[0].shape);
    const std::optional<SpatialGroups> groups = pool_groups(limits_, g, x, outputs[0]);
    if (!groups) return std::nullopt;
    const auto count = static_cast<uint64_t>(outputs[0].shape.num_elements());
    if (op.op == ir::PoolOp::Avg) return Dispatched{*groups, g.words(count, 0)};
    const std::optional<uint32_t> index = index_words(op.index_dtype);
    if (!index || count * 4 * *index > limits_.max_binding) return std::nullopt;
    return Dispatched{*groups, g.words(count, *index)};
  }

  /// An average pooling gradient's workgroups and words; nullopt where the kernel does not take
  /// it.
  template <typename Op>
  std::optional<Dispatched> pool_grad_dispatch(const Op& op, const ir::TensorMeta& grad_output,
                                               const ir::TensorMeta& dx) const {
    const PoolGeometry g = PoolGeometry::of(op.pool, op.input_shape, grad_output.shape);
    const std::optional<SpatialGroups> groups = pool_grad_groups(limits_, g, grad_output, dx);
    if (!groups) return std::nullopt;
    return Dispatched{*groups, g.words(static_cast<uint64_t>(dx.shape.num_elements()), 0)};
  }

  /// Records source over groups with words, the inputs bound before the outputs.
  void record(const std::string& source, SpatialGroups groups, const std::vector<uint32_t>& words,
              std::span<const Range> inputs, std::span<const Range> outputs) {
    std::vector<Range> tensors(inputs.begin(), inputs.end());
    tensors.insert(tensors.end(), outputs.begin(), outputs.end());
    dispatch_(source, std::as_bytes(std::span(words)), tensors, groups.x, groups.y);
    conv_pool_kernel_runs().fetch_add(1, std::memory_order_relaxed);
  }

  SpatialLimits limits_;
  std::unique_ptr<const ConvPoolSources> sources_;
  Dispatch dispatch_;
};

}  // namespace ember::shader
