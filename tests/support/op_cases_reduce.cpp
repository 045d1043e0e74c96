// Reductions (whole tensor → shape [1]; over a dim, kept with size 1) and matmul.
#include "support/op_cases.h"

namespace ember::test {
namespace {

/// Integer steps: ties for argmax/argmin (the first index wins) and zeros for any/all.
const ValueSpec kSteps{-2.0, 2.0, 1.0};
/// Products stay small for i8: |prod| <= 2^6 over [2, 3].
const ValueSpec kFactors{-2.0, 2.0, 0.0, true};

OpCase whole(std::string name, DTypes dtypes, UnaryFn fn, ValueSpec values = {},
             Shape shape = kShape) {
  return make_case(std::move(name), dtypes, {drawn(std::move(shape), values)}, run_unary(fn));
}

OpCase along(std::string name, DTypes dtypes, DimFn fn, int64_t dim, ValueSpec values = {}) {
  return make_case(std::move(name), dtypes, {drawn(kShape, values)}, run_dim(fn),
                   fixed_args({{"dim", dim}}));
}

OpCase var_case(std::string name, int64_t correction) {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::var(in.at(0), args.integer("dim"), args.integer("correction"))};
  };
  return make_case(std::move(name), DTypes::Float, {drawn(kShape)}, std::move(run),
                   fixed_args({{"dim", int64_t{1}}, {"correction", correction}}));
}

/// Batched [.., 3, 4] @ [.., 4, n]; the batch dims of lhs_shape and rhs_shape broadcast.
OpCase matmul_case(std::string name, Shape lhs_shape, Shape rhs_shape) {
  return make_case(std::move(name), DTypes::Numeric,
                   {drawn(std::move(lhs_shape)), drawn(std::move(rhs_shape))},
                   run_binary(ops::matmul));
}

}  // namespace

std::vector<OpCase> reduce_cases() {
  const DTypes num = DTypes::Numeric;
  return {
      whole("sum", num, ops::sum),
      along("sum_dim", num, ops::sum_dim, 1),
      whole("mean", num, ops::mean),
      along("mean_dim", num, ops::mean_dim, -1),
      whole("prod", num, ops::prod, kFactors, {2, 3}),
      along("prod_dim", num, ops::prod_dim, 1, kFactors),
      whole("max", DTypes::All, ops::max),
      along("max_dim", DTypes::All, ops::max_dim, -1),
      whole("min", DTypes::All, ops::min),
      along("min_dim", DTypes::All, ops::min_dim, 1),
      along("argmax", num, ops::argmax, 1, kSteps),
      along("argmin", num, ops::argmin, -1, kSteps),
      var_case("var", 1),
      var_case("var/population", 0),
      whole("any", DTypes::All, ops::any, kSteps),
      along("any_dim", DTypes::All, ops::any_dim, 1, kSteps),
      whole("all", DTypes::All, ops::all, kSteps),
      whole("all/nonzero", DTypes::All, ops::all, {-2.0, 2.0, 1.0, true}),
      along("all_dim", DTypes::All, ops::all_dim, 1, kSteps),
      matmul_case("matmul", {2, 3, 4}, {2, 4, 5}),
      matmul_case("matmul/broadcast", {2, 1, 3, 4}, {1, 3, 4, 2}),
  };
}

}  // namespace ember::test
