// Reductions (whole tensor → shape [1]; over a dim, kept with size 1) and matmul.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

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

/// Values of an integer dtype near the ends of its signed range, all odd (so no product wraps to
/// 0): sums and products wrap, as ndarray's accumulator does. Unsigned dtypes get the same bits
/// (-top wraps to 2^(bits-1) + 1).
TensorData wrapping_values(const Shape& shape, DType dtype, uint64_t seed) {
  const std::size_t bits = 8 * dtype_size(dtype);
  const int64_t top =
      bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
  std::mt19937_64 rng(seed);
  std::vector<int64_t> values(static_cast<std::size_t>(shape.num_elements()));
  for (int64_t& v : values) {
    const auto r = static_cast<int64_t>(2 * (rng() % 3));
    v = rng() % 2 == 0 ? top - r : -top + r;
  }
  return TensorData(values, shape, dtype);
}

/// A case whose integer dtypes take wrapping_values (its floats, the usual draws): the integer
/// sums, products and means that overflow. Not mirrored in generate.py (no golden values):
/// these cases reach the backends' integer accumulators, ndarray's are checked by "sum" and co.
OpCase wrapping(std::string name, OpRun run, Shape shape, ArgsFor args = fixed_args({})) {
  OpCase c = make_case(name, DTypes::Numeric, {drawn(shape)}, std::move(run), std::move(args));
  c.make_inputs = [base = std::move(c.make_inputs), shape, name](DType dtype) {
    OpInputs in = base(dtype);
    if (is_int(dtype)) in.tensors[0] = wrapping_values(shape, dtype, seed_for(name, 0));
    return in;
  };
  c.has_golden = false;
  return c;
}

/// The reduction fn along dim of shape: the layouts a GPU backend splits the work by differ
/// from those of kShape (no golden values: the layout does not change ndarray's loop).
OpCase laid_out(std::string name, DTypes dtypes, DimFn fn, Shape shape, int64_t dim,
                ValueSpec values) {
  OpCase c = make_case(std::move(name), dtypes, {drawn(std::move(shape), values)}, run_dim(fn),
                       fixed_args({{"dim", dim}}));
  c.has_golden = false;
  return c;
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
  std::vector<OpCase> cases = {
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
      wrapping("sum/wrapping", run_unary(ops::sum), {5, 7}),
      wrapping("sum_dim/wrapping", run_dim(ops::sum_dim), {40, 3},
               fixed_args({{"dim", int64_t{0}}})),
      wrapping("mean_dim/wrapping", run_dim(ops::mean_dim), {3, 9},
               fixed_args({{"dim", int64_t{1}}})),
      wrapping("prod_dim/wrapping", run_dim(ops::prod_dim), {3, 9},
               fixed_args({{"dim", int64_t{1}}})),
  };
  // Every reduction along dims laid out as a GPU backend splits them: many short rows (a warp a
  // row on cuda), two rows longer than 2048 and than one chunk (chunks, then their partials), and
  // dim 0 of a 3-d tensor (columns: chunks along the dim, then their partials).
  struct Along {
    const char* name;
    DTypes dtypes;
    DimFn fn;
    ValueSpec values;
    ValueSpec long_values;
  };
  // Long products of +-1 (and reals of magnitude 0.5 to 1) stay representable.
  const ValueSpec signs{-1.0, 1.0, 0.0, true};
  const Along reductions[] = {
      {"sum_dim", num, ops::sum_dim, {}, {}},
      {"mean_dim", num, ops::mean_dim, {}, {}},
      {"prod_dim", num, ops::prod_dim, kFactors, signs},
      {"max_dim", DTypes::All, ops::max_dim, kSteps, kSteps},
      {"min_dim", DTypes::All, ops::min_dim, kSteps, kSteps},
      {"argmax", num, ops::argmax, kSteps, kSteps},
      {"argmin", num, ops::argmin, kSteps, kSteps},
      {"any_dim", DTypes::All, ops::any_dim, kSteps, kSteps},
      {"all_dim", DTypes::All, ops::all_dim, kSteps, kSteps},
  };
  for (const Along& r : reductions) {
    const std::string name = r.name;
    cases.push_back(laid_out(name + "/rows", r.dtypes, r.fn, {1500, 7}, 1, r.values));
    cases.push_back(laid_out(name + "/long", r.dtypes, r.fn, {2, 20000}, 1, r.long_values));
    cases.push_back(laid_out(name + "/dim0", r.dtypes, r.fn, {300, 2, 3}, 0, r.values));
  }
  return cases;
}

}  // namespace ember::test
