// Sorting (stable, so ties keep their order), top-k, cumulative ops and one_hot.
#include <limits>

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

OpCase sort_with_indices_case(std::string name, int64_t dim, bool descending,
                              InputSpec x = drawn(kShape, kSortTies)) {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    auto [values, indices] =
        ops::sort_with_indices(in.at(0), args.integer("dim"), args.flag("descending"));
    return ops::Handles{values, indices};
  };
  return make_case(std::move(name), DTypes::Numeric, {std::move(x)}, std::move(run),
                   fixed_args(sort_args(dim, descending)));
}

/// A variant of a case for the devices' kernels (a dim, a line length, special values) whose op
/// the golden suite checks already on ndarray: no NumPy reference of its own.
OpCase device_variant(OpCase c) {
  c.has_golden = false;
  return c;
}

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// NaNs (the largest value, equal to each other), signed zeros (equal), infinities and ties: the
/// indices show the order of every tie. An integer dtype holds NaN as 0 and the infinities as its
/// extremes.
InputSpec special_values() {
  return given({2, 8}, {1.0, kNan, -0.0, 0.0, kNan, -kInf, 1.0, 0.0,  //
                        kInf, -1.0, kNan, kNan, -1.0, 0.0, -0.0, kInf});
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

OpCase cumulative(std::string name, DimFn fn, ValueSpec values = {}, Shape shape = kShape,
                  int64_t dim = 1) {
  return make_case(std::move(name), DTypes::Numeric, {drawn(std::move(shape), values)}, run_dim(fn),
                   fixed_args({{"dim", dim}}));
}

/// A running maximum or minimum over NaNs (which stay), signed zeros (the first stays) and
/// infinities.
OpCase cumulative_special(std::string name, DimFn fn) {
  return make_case(std::move(name), DTypes::Numeric, {special_values()}, run_dim(fn),
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
      // Along the first dim (lines strided by the dims after it), a line longer than a GPU
      // block's threads, the longest a GPU block sorts (4096) and one longer.
      device_variant(
          sort_with_indices_case("sort_with_indices/dim0", 0, false, drawn({5, 3, 4}, kSortTies))),
      device_variant(
          sort_with_indices_case("sort_with_indices/long", -1, true, drawn({3, 1500}, kSortTies))),
      device_variant(
          sort_with_indices_case("sort_with_indices/4096", 1, false, drawn({2, 4096}, kSortTies))),
      device_variant(sort_with_indices_case("sort_with_indices/past_4096", 0, true,
                                            drawn({4100, 2}, kSortTies))),
      // Lines past a workgroup's 2048 on the GPU kernels: blocks merged in passes over memory,
      // along the last dim and along a middle one (lines strided by the dim after it).
      device_variant(
          sort_with_indices_case("sort_with_indices/5000", 1, true, drawn({3, 5000}, kSortTies))),
      device_variant(sort_with_indices_case("sort_with_indices/long_middle", 1, false,
                                            drawn({2, 3000, 3}, kSortTies))),
      device_variant(
          sort_with_indices_case("sort_with_indices/special", 1, false, special_values())),
      device_variant(sort_with_indices_case("sort_with_indices/special_descending", 1, true,
                                            special_values())),
      sort_case("argsort", ops::argsort, 1, false),
      sort_case("argsort/descending", ops::argsort, -1, true),
      topk_case(),
      topk_with_indices_case(),
      cumulative("cumsum", ops::cumsum),
      // |running product| <= 2^3 over a dim of 3.
      cumulative("cumprod", ops::cumprod, {-2.0, 2.0, 0.0, true}),
      cumulative("cummax", ops::cummax),
      cumulative("cummin", ops::cummin),
      // Along the first dim of three, and lines of several GPU warps' chunks (1500 elements).
      device_variant(cumulative("cumsum/dim0", ops::cumsum, {}, {4, 3, 5}, 0)),
      device_variant(cumulative("cumsum/long", ops::cumsum, {}, {3, 1500}, 1)),
      device_variant(cumulative("cumprod/long", ops::cumprod, {-2.0, 2.0, 0.0, true}, {2, 70}, 1)),
      device_variant(cumulative("cummax/dim0", ops::cummax, {}, {4, 3, 5}, 0)),
      device_variant(cumulative("cummin/long", ops::cummin, {}, {2, 1100}, -1)),
      // Lines past the GPU kernels' 4096 (blocks, their carries, the blocks again from them),
      // along the last dim, a middle one and the first.
      device_variant(cumulative("cumsum/5000", ops::cumsum, {}, {2, 5000}, 1)),
      device_variant(
          cumulative("cumprod/4200", ops::cumprod, {-2.0, 2.0, 0.0, true}, {2, 4200}, 1)),
      device_variant(cumulative("cummax/long_middle", ops::cummax, {}, {2, 4500, 3}, 1)),
      device_variant(cumulative("cummin/5000", ops::cummin, {}, {5000, 2}, 0)),
      device_variant(cumulative_special("cummax/special", ops::cummax)),
      device_variant(cumulative_special("cummin/special", ops::cummin)),
      device_variant(cumulative_special("cumsum/special", ops::cumsum)),
      one_hot_case(),
  };
}

}  // namespace ember::test
