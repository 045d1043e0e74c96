// Comparisons (tensor-tensor and tensor-scalar), selection by a Bool tensor (where, mask_where,
// mask_fill) and cast. Values lie on a 0.5 grid so that equal elements occur.
#include "support/op_cases.h"

namespace ember::test {
namespace {

const ValueSpec kTies{-2.0, 2.0, 0.5};

OpCase compare(std::string name, BinaryFn fn) {
  return make_case(std::move(name), DTypes::All, {drawn(kShape, kTies), drawn({3, 4}, kTies)},
                   run_binary(fn));
}

OpCase compare_elem(std::string name, ScalarFn fn) {
  return make_case(std::move(name), DTypes::All, {drawn(kShape, kTies)}, run_scalar(fn),
                   [](DType d) {
                     return OpArgs{{"scalar", kind_value(d, 0.5, 1)}};
                   });
}

/// mask ? value : x, the mask broadcast from [3, 4].
OpCase mask_where_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs&, const OpTarget&) {
    return ops::Handles{ops::mask_where(in.at(0), in.at(1), in.at(2))};
  };
  return make_case("mask_where", DTypes::All,
                   {drawn(kShape), drawn_as(DType::Bool, {3, 4}), drawn(kShape, {5.0, 9.0})},
                   std::move(run));
}

OpCase mask_fill_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::mask_fill(in.at(0), in.at(1), args.scalar("value"))};
  };
  return make_case("mask_fill", DTypes::All, {drawn(kShape), drawn_as(DType::Bool, {3, 4})},
                   std::move(run), [](DType d) {
                     return OpArgs{{"value", kind_value(d, -1.5, 9)}};
                   });
}

/// cond ? a : b, all three broadcast: [2, 1, 4], [2, 3, 4], [3, 4].
OpCase where_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs&, const OpTarget&) {
    return ops::Handles{ops::where(in.at(0), in.at(1), in.at(2))};
  };
  return make_case("where", DTypes::All,
                   {drawn_as(DType::Bool, {2, 1, 4}), drawn(kShape), drawn({3, 4}, {5.0, 9.0})},
                   std::move(run));
}

/// Cast to `to`, from values with fractions (truncated toward zero) and zeros (false).
OpCase cast_case(DType to) {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::cast(in.at(0), args.dtype("dtype"))};
  };
  return make_case("cast/" + std::string(dtype_name(to)), DTypes::All,
                   {drawn(kShape, {-4.0, 4.0, 0.25})}, std::move(run),
                   fixed_args({{"dtype", std::string(dtype_name(to))}}));
}

}  // namespace

std::vector<OpCase> compare_cases() {
  return {
      compare("equal", ops::equal),
      compare("not_equal", ops::not_equal),
      compare("greater", ops::greater),
      compare("greater_equal", ops::greater_equal),
      compare("lower", ops::lower),
      compare("lower_equal", ops::lower_equal),
      compare_elem("equal_elem", ops::equal_elem),
      compare_elem("not_equal_elem", ops::not_equal_elem),
      compare_elem("greater_elem", ops::greater_elem),
      compare_elem("greater_equal_elem", ops::greater_equal_elem),
      compare_elem("lower_elem", ops::lower_elem),
      compare_elem("lower_equal_elem", ops::lower_equal_elem),
      mask_where_case(),
      mask_fill_case(),
      where_case(),
      cast_case(DType::F64),
      cast_case(DType::I32),
      cast_case(DType::Bool),
  };
}

}  // namespace ember::test
