// Sorting, top-k, cumulative ops and one_hot. argsort and topk are lowered to Sort (+ Slice);
// one_hot compares the indices with an arange of the classes.
#include <type_traits>
#include <utility>

#include "ember/tensor_ops.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"
#include "tensor/tensor_impl.h"

namespace ember::ops {
namespace {

using tensor::fail;
using tensor::KindRule;

/// (values, indices) of x sorted along dim.
std::pair<TensorHandle, TensorHandle> sorted(const TensorHandle& x, int64_t dim, bool descending,
                                             std::string_view op) {
  tensor::require(x, KindRule::Numeric, op);
  const ir::Sort sort{tensor::normalize_dim(dim, x.rank(), op), descending, tensor::index_dtype(x)};
  Handles outputs = tensor::run(sort, std::span<const TensorHandle>(&x, 1));
  return {std::move(outputs[0]), std::move(outputs[1])};
}

TensorHandle cumulative(const TensorHandle& x, int64_t dim, ir::CumulativeOp op,
                        std::string_view name) {
  tensor::require(x, KindRule::Numeric, name);
  return tensor::run_one(ir::Cumulative{op, tensor::normalize_dim(dim, x.rank(), name)}, {x});
}

/// Throws unless every value of the Int tensor x is in [0, num_classes).
void check_classes(const TensorHandle& x, int64_t num_classes) {
  // A captured one_hot cannot see its classes; replayed, a class out of range gives a zero row.
  if (tensor::is_symbolic(x)) return;
  const TensorData data = into_data(x);
  visit_dtype(data.dtype(), [&]<typename T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      for (T v : data.as<T>()) {
        if (std::cmp_less(v, 0) || std::cmp_greater_equal(v, num_classes)) {
          fail("one_hot", "class index ", +v, " out of range [0, ", num_classes, ")");
        }
      }
    }
  });
}

}  // namespace

TensorHandle sort(const TensorHandle& x, int64_t dim, bool descending) {
  return sorted(x, dim, descending, "sort").first;
}

std::pair<TensorHandle, TensorHandle> sort_with_indices(const TensorHandle& x, int64_t dim,
                                                        bool descending) {
  return sorted(x, dim, descending, "sort_with_indices");
}

TensorHandle argsort(const TensorHandle& x, int64_t dim, bool descending) {
  return sorted(x, dim, descending, "argsort").second;
}

TensorHandle topk(const TensorHandle& x, int64_t k, int64_t dim) {
  return topk_with_indices(x, k, dim).first;
}

std::pair<TensorHandle, TensorHandle> topk_with_indices(const TensorHandle& x, int64_t k,
                                                        int64_t dim) {
  tensor::require(x, KindRule::Numeric, "topk");
  const int64_t d = tensor::normalize_dim(dim, x.rank(), "topk");
  const int64_t size = x.shape()[static_cast<std::size_t>(d)];
  if (k < 0 || k > size) fail("topk", "k ", k, " out of range for dim ", dim, " of size ", size);
  // A stable descending sort keeps equal values in index order, so ties resolve to the first.
  auto [values, indices] = sorted(x, d, true, "topk");
  return {narrow(values, d, 0, k), narrow(indices, d, 0, k)};
}

TensorHandle cumsum(const TensorHandle& x, int64_t dim) {
  return cumulative(x, dim, ir::CumulativeOp::Sum, "cumsum");
}
TensorHandle cumprod(const TensorHandle& x, int64_t dim) {
  return cumulative(x, dim, ir::CumulativeOp::Prod, "cumprod");
}
TensorHandle cummax(const TensorHandle& x, int64_t dim) {
  return cumulative(x, dim, ir::CumulativeOp::Max, "cummax");
}
TensorHandle cummin(const TensorHandle& x, int64_t dim) {
  return cumulative(x, dim, ir::CumulativeOp::Min, "cummin");
}

TensorHandle one_hot(const TensorHandle& x, int64_t num_classes, TensorKind kind) {
  tensor::require(x, KindRule::Int, "one_hot");
  if (num_classes <= 0) fail("one_hot", "num_classes ", num_classes, " must be positive");
  const detail::TensorImpl& impl = *x.impl();
  const DType dtype = tensor::default_dtype(impl.context->settings(), kind);
  Dims result = impl.meta.shape.dims();
  result.push_back(num_classes);
  tensor::check_result_size(Shape(std::move(result)), dtype, "one_hot");
  check_classes(x, num_classes);
  // [..., 1] == [num_classes] broadcasts to [..., num_classes], true where the class matches.
  const TensorHandle classes =
      tensor::run_on(ir::Arange{0, num_classes, 1, DType::I64}, impl.device, impl.context);
  const TensorHandle hot = equal(unsqueeze_dim(cast(x, DType::I64), -1), classes);
  return cast(hot, dtype);
}

}  // namespace ember::ops
