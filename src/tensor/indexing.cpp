// Indexing ops. Index values are not remapped here: a negative or too-large index reaches the
// backend, which rejects it with InvalidArgument (an index is data, known only on the device).
#include "ember/tensor_ops.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"

namespace ember::ops {
namespace {

using tensor::KindRule;

/// dim normalized for x, after checking that indices are an Int tensor.
int64_t indexed_dim(const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                    std::string_view op) {
  tensor::require(indices, KindRule::Int, op);
  return tensor::normalize_dim(dim, tensor::shape_of(x, op).rank(), op);
}

/// IndexOp{dim} on (x, indices): a read along dim (select, gather).
template <typename IndexOp>
TensorHandle read_along(const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                        std::string_view op) {
  return tensor::run_one(IndexOp{indexed_dim(x, dim, indices, op)}, {x, indices});
}

/// IndexOp{dim, Add} on (x, indices, values): a write along dim (select_assign, scatter), values
/// cast to x's dtype since an indexed write keeps the dtype of the tensor written into.
template <typename IndexOp>
TensorHandle write_along(const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                         const TensorHandle& values, std::string_view op) {
  const int64_t d = indexed_dim(x, dim, indices, op);
  tensor::require_same_kind(x, values, op);
  return tensor::run_one(IndexOp{d, ir::IndexUpdate::Add}, {x, indices, cast(values, x.dtype())});
}

}  // namespace

TensorHandle select(const TensorHandle& x, int64_t dim, const TensorHandle& indices) {
  return read_along<ir::Select>(x, dim, indices, "select");
}

TensorHandle select_assign(const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                           const TensorHandle& values) {
  return write_along<ir::SelectAssign>(x, dim, indices, values, "select_assign");
}

TensorHandle gather(const TensorHandle& x, int64_t dim, const TensorHandle& indices) {
  return read_along<ir::Gather>(x, dim, indices, "gather");
}

TensorHandle scatter(const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                     const TensorHandle& values) {
  return write_along<ir::Scatter>(x, dim, indices, values, "scatter");
}

}  // namespace ember::ops
