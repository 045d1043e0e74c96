#include "tensor/promote.h"

#include "tensor/check.h"

namespace ember::tensor {

ops::Handles promote(const ops::Handles& xs, std::string_view op) {
  if (xs.empty()) return {};
  DType common = tensor_dtype(xs.front(), op);
  for (const TensorHandle& x : xs) {
    require_same_kind(xs.front(), x, op);
    common = promote_types(common, x.dtype());
  }
  ops::Handles promoted;
  promoted.reserve(xs.size());
  for (const TensorHandle& x : xs)
    promoted.push_back(ops::cast(x, common));
  return promoted;
}

std::pair<TensorHandle, TensorHandle> promote(const TensorHandle& a, const TensorHandle& b,
                                              std::string_view op) {
  // The checks of promote({a, b}), in its order, without building the two lists: this runs for
  // every binary op.
  const DType a_dtype = tensor_dtype(a, op);
  const DType b_dtype = tensor_dtype(b, op);
  // The usual case, two tensors of one dtype, needs no kind check and no casts.
  if (a_dtype == b_dtype) return {a, b};
  require_same_kind(a, b, op);
  const DType common = promote_types(a_dtype, b_dtype);
  return {ops::cast(a, common), ops::cast(b, common)};
}

}  // namespace ember::tensor
