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

/// values as x's dtype: an indexed write keeps the dtype of the tensor written into.
TensorHandle written_values(const TensorHandle& x, const TensorHandle& values,
                            std::string_view op) {
  tensor::require_same_kind(x, values, op);
  return cast(values, x.dtype());
}

}  // namespace

TensorHandle select(const TensorHandle& x, int64_t dim, const TensorHandle& indices) {
  const int64_t d = indexed_dim(x, dim, indices, "select");
  return tensor::run_one(ir::Select{d}, {x, indices});
}

TensorHandle select_assign(const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                           const TensorHandle& values) {
  const int64_t d = indexed_dim(x, dim, indices, "select_assign");
  const TensorHandle v = written_values(x, values, "select_assign");
  return tensor::run_one(ir::SelectAssign{d, ir::IndexUpdate::Add}, {x, indices, v});
}

TensorHandle gather(const TensorHandle& x, int64_t dim, const TensorHandle& indices) {
  const int64_t d = indexed_dim(x, dim, indices, "gather");
  return tensor::run_one(ir::Gather{d}, {x, indices});
}

TensorHandle scatter(const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                     const TensorHandle& values) {
  const int64_t d = indexed_dim(x, dim, indices, "scatter");
  const TensorHandle v = written_values(x, values, "scatter");
  return tensor::run_one(ir::Scatter{d, ir::IndexUpdate::Add}, {x, indices, v});
}

}  // namespace ember::ops
