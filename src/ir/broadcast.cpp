// ir::broadcast_shapes: the public face of the rules' NumPy broadcasting.
#include "ir/rules.h"

namespace ember::ir {

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& op) {
  std::optional<Shape> shape = rules::try_broadcast(a, b);
  if (!shape) {
    throw InvalidArgument(rules::concat('[', op, "] shapes ", a, " and ", b, " do not broadcast"));
  }
  return std::move(*shape);
}

}  // namespace ember::ir
