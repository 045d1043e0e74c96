#include "ember/tensor_ops.h"

#include <utility>

#include "tensor/check.h"
#include "tensor/dispatch.h"
#include "tensor/promote.h"

namespace ember::ops {

TensorHandle matmul(const TensorHandle& a, const TensorHandle& b) {
  tensor::require(a, tensor::KindRule::Numeric, "matmul");
  tensor::require(b, tensor::KindRule::Numeric, "matmul");
  // Shapes (equal ranks >= 2, inner dims, batch broadcast) are ir::infer's rule.
  auto [lhs, rhs] = tensor::promote(a, b, "matmul");
  return tensor::run_one(ir::Matmul{}, {std::move(lhs), std::move(rhs)});
}

}  // namespace ember::ops
