// Binary elementwise ops on two tensors, with broadcasting ([2, 3, 4] with [3, 1]).
#include "support/op_cases.h"

namespace ember::test {
namespace {

const Shape kBroadcastShape{3, 1};

OpCase binary(std::string name, DTypes dtypes, BinaryFn fn, ValueSpec lhs = {},
              ValueSpec rhs = {}) {
  return make_case(std::move(name), dtypes, {drawn(kShape, lhs), drawn(kBroadcastShape, rhs)},
                   run_binary(fn));
}

/// The widest dtype of d's kind: what d promotes to against it.
DType widest_of_kind(DType d) {
  if (is_float(d)) return DType::F64;
  if (is_int(d)) return DType::I64;
  return DType::Bool;
}

/// add with the rhs in the widest dtype of the kind: exercises promote_types.
OpCase add_promote_case() {
  OpCase c = binary("add/promote", DTypes::Numeric, ops::add);
  c.make_inputs = [make = c.make_inputs](DType d) {
    OpInputs in = make(d);
    in.tensors.at(1) = in.tensors.at(1).convert(widest_of_kind(d));
    return in;
  };
  return c;
}

}  // namespace

std::vector<OpCase> binary_cases() {
  const ValueSpec dividend{-9.0, 9.0};
  const ValueSpec divisor{-4.0, 4.0, 0.0, true};
  return {
      binary("add", DTypes::Numeric, ops::add),
      add_promote_case(),
      // Unsigned lhs >= rhs: no wrap-around.
      binary("sub", DTypes::Numeric, ops::sub, {4.0, 9.0}, {-4.0, 4.0}),
      binary("mul", DTypes::Numeric, ops::mul),
      binary("div", DTypes::Numeric, ops::div, dividend, divisor),
      binary("remainder", DTypes::Numeric, ops::remainder, dividend, divisor),
      // A real exponent needs a positive base.
      binary("powf", DTypes::Float, ops::powf, {0.5, 2.5}, {-2.0, 2.0}),
      // 0.5 steps: equal elements occur.
      binary("maximum", DTypes::Numeric, ops::maximum, {-3.0, 3.0, 0.5}, {-3.0, 3.0, 0.5}),
      binary("minimum", DTypes::Numeric, ops::minimum, {-3.0, 3.0, 0.5}, {-3.0, 3.0, 0.5}),
      binary("bool_and", DTypes::Bool, ops::bool_and),
      binary("bool_or", DTypes::Bool, ops::bool_or),
      binary("bool_xor", DTypes::Bool, ops::bool_xor),
  };
}

}  // namespace ember::test
