// Elementwise ops of a tensor and a scalar. The scalar follows the dtype's kind (a real for
// floats, an integer for ints), as the ops require it to fit the tensor's dtype.
#include "support/op_cases.h"

namespace ember::test {
namespace {

/// fn(x, scalar) with scalar `real` for floats and `integer` for ints.
OpCase scalar_op(std::string name, ScalarFn fn, double real, int64_t integer,
                 ValueSpec values = {-5.0, 5.0}) {
  return make_case(std::move(name), DTypes::Numeric, {drawn(kShape, values)}, run_scalar(fn),
                   [real, integer](DType d) {
                     return OpArgs{{"scalar", kind_value(d, real, integer)}};
                   });
}

OpCase powf_scalar_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::powf_scalar(in.at(0), args.real("exponent"))};
  };
  // A real exponent needs a positive base.
  return make_case("powf_scalar", DTypes::Float, {drawn(kShape, {0.5, 3.0})}, std::move(run),
                   fixed_args({{"exponent", 1.5}}));
}

OpCase powi_scalar_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::powi_scalar(in.at(0), args.integer("exponent"))};
  };
  return make_case("powi_scalar", DTypes::Numeric, {drawn(kShape)}, std::move(run),
                   fixed_args({{"exponent", int64_t{3}}}));
}

OpCase clamp_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::clamp(in.at(0), args.scalar("min"), args.scalar("max"))};
  };
  return make_case("clamp", DTypes::Numeric, {drawn(kShape, {-5.0, 5.0})}, std::move(run),
                   [](DType d) {
                     return OpArgs{{"min", kind_value(d, -1.5, 1)}, {"max", kind_value(d, 2.0, 4)}};
                   });
}

/// clamp_min / clamp_max: one bound, named key.
OpCase clamp_bound_case(std::string name, ScalarFn fn, std::string key, double real,
                        int64_t integer) {
  return make_case(std::move(name), DTypes::Numeric, {drawn(kShape, {-5.0, 5.0})},
                   run_scalar(fn, key), [key, real, integer](DType d) {
                     return OpArgs{{key, kind_value(d, real, integer)}};
                   });
}

}  // namespace

std::vector<OpCase> scalar_cases() {
  return {
      scalar_op("add_scalar", ops::add_scalar, 1.5, 3),
      // x >= scalar: unsigned results do not wrap.
      scalar_op("sub_scalar", ops::sub_scalar, 1.5, 2, {2.0, 9.0}),
      scalar_op("rsub_scalar", ops::rsub_scalar, 2.5, 10),
      scalar_op("mul_scalar", ops::mul_scalar, -1.5, 3),
      // Negative dividends: integer division truncates toward zero (-7 / 2 = -3).
      scalar_op("div_scalar", ops::div_scalar, 1.5, 2, {-9.0, 9.0}),
      scalar_op("rdiv_scalar", ops::rdiv_scalar, 2.5, 7, {-4.0, 4.0, 0.0, true}),
      scalar_op("remainder_scalar", ops::remainder_scalar, 1.5, 4, {-9.0, 9.0}),
      powf_scalar_case(),
      powi_scalar_case(),
      clamp_case(),
      clamp_bound_case("clamp_min", ops::clamp_min, "min", -1.5, 1),
      clamp_bound_case("clamp_max", ops::clamp_max, "max", 2.0, 4),
  };
}

}  // namespace ember::test
