// The harness itself: the op table, its input generator and the output comparison, which the
// golden and conformance suites trust.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/op_args.h"
#include "support/op_compare.h"
#include "support/op_table.h"
#include "support/op_values.h"

namespace ember::test {
namespace {

TEST(OpTable, CaseNamesAreUniqueAsTestNamesToo) {
  std::set<std::string> names;
  for (const OpCase& op : op_table()) {
    EXPECT_TRUE(names.insert(test_name(op.name)).second) << op.name;
    EXPECT_EQ(find_op_case(op.name), &op);
  }
  EXPECT_EQ(find_op_case("no_such_op"), nullptr);
}

// The rejection test builds inputs in dtypes a case does not accept, so every dtype must work.
TEST(OpTable, EveryCaseBuildsInputsForEveryDType) {
  for (const OpCase& op : op_table()) {
    const std::size_t count = op.make_inputs(DType::F32).tensors.size();
    for (DType dtype : kAllDTypes) {
      OpInputs inputs;
      EXPECT_NO_THROW(inputs = op.make_inputs(dtype)) << op.name << " " << dtype;
      EXPECT_EQ(inputs.tensors.size(), count) << op.name << " " << dtype;
    }
  }
}

TEST(OpTable, DTypeClassesContainTheirDTypes) {
  EXPECT_TRUE(contains(DTypes::Float, DType::BF16));
  EXPECT_FALSE(contains(DTypes::Float, DType::I8));
  EXPECT_TRUE(contains(DTypes::FloatOrSigned, DType::I16));
  EXPECT_FALSE(contains(DTypes::FloatOrSigned, DType::U16));
  EXPECT_TRUE(contains(DTypes::Int, DType::U64));
  EXPECT_FALSE(contains(DTypes::Numeric, DType::Bool));
  EXPECT_TRUE(contains(DTypes::All, DType::Bool));
  EXPECT_FALSE(contains(DTypes::None, DType::F32));
}

TEST(OpTable, TestNamesKeepOnlyLettersDigitsAndUnderscores) {
  EXPECT_EQ(test_name("slice/negative_step"), "slice_negative_step");
  EXPECT_EQ(test_name("cuda:0_add"), "cuda_0_add");
}

TEST(OpValues, SameSeedSameValuesOtherSeedOtherValues) {
  const ValueSpec spec{};
  const TensorData a = make_values({4, 8}, DType::F32, spec, 1);
  EXPECT_TRUE(a == make_values({4, 8}, DType::F32, spec, 1));
  EXPECT_FALSE(a == make_values({4, 8}, DType::F32, spec, 2));
  EXPECT_NE(seed_for("add", 0), seed_for("add", 1));
  EXPECT_NE(seed_for("add", 0), seed_for("sub", 0));
}

TEST(OpValues, RealsStayInRangeAndAwayFromZeroWhenAsked) {
  const auto values = make_values({64}, DType::F64, {-2.0, 2.0, 0.0, true}, 7).to_vector<double>();
  for (double v : values) {
    EXPECT_LE(std::abs(v), 2.5) << v;  // the shift away from zero adds at most 0.5
    EXPECT_GE(std::abs(v), 0.5) << v;
  }
}

TEST(OpValues, IntegersFollowTheGridAndUnsignedStartAtZero) {
  // [-2.5, 3] rounds inwards to the integers -2..3; unsigned: 0..3; nonzero drops 0.
  const auto ints = make_values({64}, DType::I32, {-2.5, 3.0, 0.0, true}, 3).to_vector<double>();
  for (double v : ints) {
    EXPECT_TRUE(v >= -2 && v <= 3 && v != 0 && v == std::round(v)) << v;
  }
  const auto unsigned_ints = make_values({64}, DType::U8, {-2.0, 3.0}, 3).to_vector<double>();
  EXPECT_EQ(*std::ranges::min_element(unsigned_ints), 0.0);
  EXPECT_EQ(*std::ranges::max_element(unsigned_ints), 3.0);
}

TEST(OpValues, SteppedRealsLieOnTheirGrid) {
  for (double v : make_values({64}, DType::F32, {-2.0, 2.0, 0.5}, 5).to_vector<double>()) {
    EXPECT_EQ(v * 2, std::round(v * 2)) << v;
    EXPECT_TRUE(v >= -2 && v <= 2) << v;
  }
}

TEST(OpValues, DistinctValuesArePermutedSteps) {
  auto values =
      make_values({2, 3}, DType::F64, {-1.0, 0.0, 0.5, false, true}, 9).to_vector<double>();
  std::ranges::sort(values);
  EXPECT_EQ(values, (std::vector<double>{-1.0, -0.5, 0.0, 0.5, 1.0, 1.5}));
}

TEST(OpValues, BoolsAreBothValuesOrAllTrue) {
  const auto mixed = make_values({64}, DType::Bool, {}, 11).to_vector<int>();
  EXPECT_NE(std::ranges::count(mixed, 0), 0);
  EXPECT_NE(std::ranges::count(mixed, 1), 0);
  const auto all_true = make_values({8}, DType::Bool, {.nonzero = true}, 11).to_vector<int>();
  EXPECT_EQ(std::ranges::count(all_true, 1), 8);
}

TEST(OpCompare, ValuesMatchChecksDTypeShapeAndValues) {
  const TensorData x(std::vector<float>{1.0f, 2.0f}, {2});
  EXPECT_TRUE(values_match(x, {DType::F32, TensorData(std::vector<double>{1.0, 2.0}, {2})}));
  EXPECT_FALSE(values_match(x, {DType::F64, x}));
  EXPECT_FALSE(values_match(x, {DType::F32, TensorData(std::vector<float>{1, 2}, {1, 2})}));
  EXPECT_FALSE(values_match(x, {DType::F32, TensorData(std::vector<float>{1.0f, 2.5f}, {2})}));
  // Integers compare exactly.
  const TensorData i(std::vector<int32_t>{7}, {1});
  EXPECT_FALSE(values_match(i, {DType::I32, TensorData(std::vector<int32_t>{8}, {1})}));
}

TEST(OpCompare, MetaMatchIgnoresValues) {
  const TensorData x(std::vector<float>{1.0f, 2.0f}, {2});
  EXPECT_TRUE(meta_match(x, {DType::F32, TensorData(std::vector<float>{5, 6}, {2})}));
  EXPECT_FALSE(meta_match(x, {DType::F32, TensorData(std::vector<float>{5}, {1})}));
}

TEST(OpArgs, TypedAccessorsConvertOrThrow) {
  const OpArgs args{{"dim", int64_t{2}},
                    {"value", 2.5},
                    {"flag", true},
                    {"dtype", std::string("i32")},
                    {"kind", std::string("bool")}};
  EXPECT_EQ(args.integer("dim"), 2);
  EXPECT_EQ(args.real("dim"), 2.0);
  EXPECT_EQ(args.scalar("value"), Scalar(2.5));
  EXPECT_EQ(args.scalar("dim"), Scalar(int64_t{2}));
  EXPECT_EQ(args.scalar("flag"), Scalar(true));
  EXPECT_EQ(args.dtype("dtype"), DType::I32);
  EXPECT_EQ(args.kind("kind"), TensorKind::Bool);
  EXPECT_THROW(args.integer("value"), std::invalid_argument);
  EXPECT_THROW(args.integer("missing"), std::invalid_argument);
  EXPECT_THROW(args.kind("dtype"), std::invalid_argument);
}

}  // namespace
}  // namespace ember::test
