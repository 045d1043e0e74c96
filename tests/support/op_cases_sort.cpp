// Sorting (stable, so ties keep their order), top-k, cumulative ops and one_hot.
#include "support/op_cases.h"

namespace ember::test {
namespace {

/// Integer steps: many ties, which a stable sort must keep in input order.
const ValueSpec kSortTies{-2.0, 2.0, 1.0};
/// No ties: topk's order among equal values is unspecified.
const ValueSpec kDistinct{-6.0, 0.0, 0.5, false, true};

OpArgs sort_args(int64_t dim, bool descending) {
  return {{"dim", dim}, {"descending", descending}};
}

/// fn(x, dim, descending) → one output.
using SortFn = TensorHandle (*)(const TensorHandle&, int64_t, bool);

OpCase sort_case(std::string name, SortFn fn, int64_t dim, bool descending) {
  OpRun run = [fn](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{fn(in.at(0), args.integer("dim"), args.flag("descending"))};
  };
  return make_case(std::move(name), DTypes::Numeric, {drawn(kShape, kSortTies)}, std::move(run),
                   fixed_args(sort_args(dim, descending)));
}

OpCase sort_with_indices_case(std::string name, int64_t dim, bool descending) {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    auto [values, indices] =
        ops::sort_with_indices(in.at(0), args.integer("dim"), args.flag("descending"));
    return ops::Handles{values, indices};
  };
  return make_case(std::move(name), DTypes::Numeric, {drawn(kShape, kSortTies)}, std::move(run),
                   fixed_args(sort_args(dim, descending)));
}

OpCase topk_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::topk(in.at(0), args.integer("k"), args.integer("dim"))};
  };
  return make_case("topk", DTypes::Numeric, {drawn(kShape, kDistinct)}, std::move(run),
                   fixed_args({{"k", int64_t{2}}, {"dim", int64_t{-1}}}));
}

OpCase topk_with_indices_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    auto [values, indices] =
        ops::topk_with_indices(in.at(0), args.integer("k"), args.integer("dim"));
    return ops::Handles{values, indices};
  };
  return make_case("topk_with_indices", DTypes::Numeric, {drawn(kShape, kDistinct)}, std::move(run),
                   fixed_args({{"k", int64_t{3}}, {"dim", int64_t{1}}}));
}

OpCase cumulative(std::string name, DimFn fn, ValueSpec values = {}) {
  return make_case(std::move(name), DTypes::Numeric, {drawn(kShape, values)}, run_dim(fn),
                   fixed_args({{"dim", int64_t{1}}}));
}

/// Int classes in [0, 4) → [2, 3, 4] of the Float kind.
OpCase one_hot_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::one_hot(in.at(0), args.integer("num_classes"), args.kind("kind"))};
  };
  return make_case("one_hot", DTypes::Int, {drawn({2, 3}, {0.0, 3.0})}, std::move(run),
                   fixed_args({{"num_classes", int64_t{4}}, {"kind", std::string("float")}}));
}

}  // namespace

std::vector<OpCase> sort_cases() {
  return {
      sort_case("sort", ops::sort, 1, false),
      sort_case("sort/descending", ops::sort, -1, true),
      sort_with_indices_case("sort_with_indices", 1, false),
      sort_with_indices_case("sort_with_indices/descending", -1, true),
      sort_case("argsort", ops::argsort, 1, false),
      sort_case("argsort/descending", ops::argsort, -1, true),
      topk_case(),
      topk_with_indices_case(),
      cumulative("cumsum", ops::cumsum),
      // |running product| <= 2^3 over a dim of 3.
      cumulative("cumprod", ops::cumprod, {-2.0, 2.0, 0.0, true}),
      cumulative("cummax", ops::cummax),
      cumulative("cummin", ops::cummin),
      one_hot_case(),
  };
}

}  // namespace ember::test
