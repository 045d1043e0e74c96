// Layout cases: reshape, permute, flip, expand, slice (with steps), slice_assign, cat.
#include "gradcheck/gradcheck.h"

namespace ember::test {

std::vector<GradCase> layout_grad_cases() {
  using ir::SliceRange;
  return {
      op_case("reshape", ir::Reshape{Shape{3, 2}}, {reals("reshape", {2, 3})}),
      op_case("permute", ir::Permute{{2, 0, 1}}, {reals("permute", {2, 3, 2})}),
      op_case("flip", ir::Flip{{1}}, {reals("flip", {2, 3})}),
      op_case("flip/both", ir::Flip{{0, 1}}, {reals("flip2", {2, 3})}),
      op_case("expand", ir::Expand{Shape{2, 4, 3}}, {reals("expand", {2, 1, 3})}),
      op_case("slice/steps", ir::Slice{{SliceRange{0, 4, 2}, SliceRange{1, 5, 3}}},
              {reals("slice", {4, 5})}),
      // Rows 1..2 and columns 0, 2 of a [3, 4] tensor are replaced by a [2, 2] block.
      op_case("slice_assign", ir::SliceAssign{{SliceRange{1, 3, 1}, SliceRange{0, 4, 2}}},
              {reals("slice_assign/x", {3, 4}), reals("slice_assign/v", {2, 2})}),
      op_case("cat", ir::Cat{1},
              {reals("cat/a", {2, 1}), reals("cat/b", {2, 3}), reals("cat/c", {2, 2})}),
  };
}

}  // namespace ember::test
