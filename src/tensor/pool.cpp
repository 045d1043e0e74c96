// The pooling functions of pool.h: max and average pooling lowered to one ir::Pool, adaptive
// pooling to one ir::AdaptivePool. Here: x's kind and layout, and the per-dim options expanded
// to one value per spatial dim (an empty stride is the kernel); every range and size rule
// (kernel >= 1, padding <= kernel / 2, output size >= 1, ...) is ir::infer's.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "ember/pooling.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"

namespace ember::ops {
namespace {

using ir::PoolOp;
using tensor::KindRule;

/// The op's name as ir::name spells it ("max_pool2d", "adaptive_avg_pool1d"), so that messages
/// from here and from ir::infer agree; without the "Nd" when x's rank fits no pooling.
std::string pool_name(PoolOp op, bool adaptive, const TensorHandle& x) {
  std::string name =
      std::string(adaptive ? "adaptive_" : "") + (op == PoolOp::Max ? "max" : "avg") + "_pool";
  const std::size_t rank = x.defined() ? x.rank() : 0;
  if (rank >= 3 && rank <= 5) name += std::to_string(rank - 2) + "d";
  return name;
}

/// Max pooling takes any numeric x, average pooling a Float one.
KindRule kinds_of(PoolOp op) {
  return op == PoolOp::Max ? KindRule::Numeric : KindRule::Float;
}

/// The spatial dims of x, after checking its kind and layout for the pooling named name.
std::size_t pooled_dims(const TensorHandle& x, PoolOp op, std::string_view name) {
  tensor::require(x, kinds_of(op), name);
  return tensor::spatial_dims_of(x, name);
}

/// The window geometry shared by max and average pooling, one value per spatial dim.
struct Geometry {
  Dims kernel;
  Dims stride;
  Dims padding;
};

Geometry geometry_of(const Dims& kernel_size, const Dims& stride, const Dims& padding,
                     std::size_t spatial_dims, std::string_view name) {
  Dims kernel = tensor::per_spatial_dim(kernel_size, spatial_dims, "kernel_size", name);
  Dims strides =
      stride.empty() ? kernel : tensor::per_spatial_dim(stride, spatial_dims, "stride", name);
  return {std::move(kernel), std::move(strides),
          tensor::per_spatial_dim(padding, spatial_dims, "padding", name)};
}

/// The outputs of pool on x.
Handles run_pool(const ir::Op& pool, const TensorHandle& x) {
  return tensor::run(pool, std::span<const TensorHandle>(&x, 1));
}

std::pair<TensorHandle, TensorHandle> values_and_indices(Handles outputs) {
  return {std::move(outputs[0]), std::move(outputs[1])};
}

}  // namespace

TensorHandle max_pool(const TensorHandle& x, const module::MaxPoolOptions& options) {
  return max_pool_with_indices(x, options).first;
}

std::pair<TensorHandle, TensorHandle> max_pool_with_indices(const TensorHandle& x,
                                                            const module::MaxPoolOptions& options) {
  const std::string name = pool_name(PoolOp::Max, false, x);
  const std::size_t spatial_dims = pooled_dims(x, PoolOp::Max, name);
  Geometry g =
      geometry_of(options.kernel_size, options.stride, options.padding, spatial_dims, name);
  const ir::Pool pool{
      .op = PoolOp::Max,
      .kernel = std::move(g.kernel),
      .stride = std::move(g.stride),
      .padding = std::move(g.padding),
      .dilation = tensor::per_spatial_dim(options.dilation, spatial_dims, "dilation", name),
      .ceil_mode = options.ceil_mode,
      .index_dtype = tensor::index_dtype(x)};
  return values_and_indices(run_pool(pool, x));
}

TensorHandle avg_pool(const TensorHandle& x, const module::AvgPoolOptions& options) {
  const std::string name = pool_name(PoolOp::Avg, false, x);
  const std::size_t spatial_dims = pooled_dims(x, PoolOp::Avg, name);
  Geometry g =
      geometry_of(options.kernel_size, options.stride, options.padding, spatial_dims, name);
  const ir::Pool pool{.op = PoolOp::Avg,
                      .kernel = std::move(g.kernel),
                      .stride = std::move(g.stride),
                      .padding = std::move(g.padding),
                      .dilation = Dims(spatial_dims, 1),
                      .ceil_mode = options.ceil_mode,
                      .count_include_pad = options.count_include_pad,
                      .divisor_override = options.divisor_override};
  return run_pool(pool, x).front();
}

TensorHandle adaptive_avg_pool(const TensorHandle& x, const Dims& output_size) {
  const std::string name = pool_name(PoolOp::Avg, true, x);
  const std::size_t spatial_dims = pooled_dims(x, PoolOp::Avg, name);
  const ir::AdaptivePool pool{
      PoolOp::Avg, tensor::per_spatial_dim(output_size, spatial_dims, "output_size", name)};
  return run_pool(pool, x).front();
}

std::pair<TensorHandle, TensorHandle> adaptive_max_pool_with_indices(const TensorHandle& x,
                                                                     const Dims& output_size) {
  const std::string name = pool_name(PoolOp::Max, true, x);
  const std::size_t spatial_dims = pooled_dims(x, PoolOp::Max, name);
  const ir::AdaptivePool pool{
      PoolOp::Max, tensor::per_spatial_dim(output_size, spatial_dims, "output_size", name),
      tensor::index_dtype(x)};
  return values_and_indices(run_pool(pool, x));
}

}  // namespace ember::ops
