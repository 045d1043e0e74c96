// Rules of full, arange and random.
#include <cstdint>
#include <limits>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::contains;
using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrFull, GivesShapeAndDtype) {
  EXPECT_EQ(infer_one(Full{{2, 3}, DType::I32, 7}, {}), meta({2, 3}, DType::I32));
  EXPECT_EQ(infer_one(Full{{0}, DType::Bool, 2.5}, {}), meta({0}, DType::Bool));
  // 1e10 overflows f16 to infinity, which is a defined f16 value.
  EXPECT_EQ(infer_one(Full{{1}, DType::F16, 1e10}, {}), meta({1}, DType::F16));
}

TEST(IrFull, RejectsBadShapeValueAndArity) {
  EXPECT_EQ(infer_error(Full{{2, -3}, DType::F32, 0}, {}),
            "[full] shape [2, -3] has negative dim -3");
  EXPECT_TRUE(contains(infer_error(Full{{2}, DType::U8, 256}, {}), "does not fit in u8"));
  EXPECT_EQ(infer_error(Full{{2}, DType::F32, 0}, {meta({2})}), "[full] expects 0 inputs, got 1");
}

TEST(IrArange, LengthIsCeilOfDistanceOverStep) {
  // 0, 3, 6, 9.
  EXPECT_EQ(infer_one(Arange{0, 10, 3, DType::I64}, {}), meta({4}, DType::I64));
  // 10, 7, 4, 1.
  EXPECT_EQ(infer_one(Arange{10, 0, -3, DType::I32}, {}), meta({4}, DType::I32));
  // A step away from end, or an empty range, gives nothing.
  EXPECT_EQ(infer_one(Arange{0, 10, -1, DType::I64}, {}), meta({0}, DType::I64));
  EXPECT_EQ(infer_one(Arange{5, 5, 1, DType::I64}, {}), meta({0}, DType::I64));
  // 0..255 fits u8 exactly.
  EXPECT_EQ(infer_one(Arange{0, 256, 1, DType::U8}, {}), meta({256}, DType::U8));
}

TEST(IrArange, HandlesTheWholeInt64Range) {
  constexpr int64_t lo = std::numeric_limits<int64_t>::min();
  constexpr int64_t hi = std::numeric_limits<int64_t>::max();
  // Distance 2^64 - 1 with step 2^62: ceil((2^64 - 1) / 2^62) = 4 values.
  EXPECT_EQ(infer_one(Arange{lo, hi, int64_t{1} << 62, DType::I64}, {}), meta({4}, DType::I64));
  EXPECT_EQ(infer_one(Arange{hi, lo, lo, DType::I64}, {}), meta({2}, DType::I64));
  EXPECT_EQ(infer_error(Arange{lo, hi, 1, DType::I64}, {}),
            "[arange] range -9223372036854775808..9223372036854775807 has more elements than "
            "int64 can count");
}

TEST(IrArange, RejectsBadArguments) {
  EXPECT_EQ(infer_error(Arange{0, 10, 0, DType::I64}, {}), "[arange] step 0 must be nonzero");
  EXPECT_EQ(infer_error(Arange{0, 10, 1, DType::F32}, {}),
            "[arange] expects an int dtype, got f32");
  EXPECT_EQ(infer_error(Arange{0, 300, 1, DType::U8}, {}),
            "[arange] values 0 to 299 do not fit in u8");
  EXPECT_EQ(infer_error(Arange{-1, 3, 1, DType::U32}, {}),
            "[arange] values -1 to 2 do not fit in u32");
}

TEST(IrRandom, GivesShapeAndDtype) {
  EXPECT_EQ(infer_one(Random{{2, 3}, DType::F32, Distribution::normal(0, 1), 7}, {}),
            meta({2, 3}, DType::F32));
  EXPECT_EQ(infer_one(Random{{4}, DType::I32, Distribution::uniform(0, 10), 7}, {}),
            meta({4}, DType::I32));
  EXPECT_EQ(infer_one(Random{{0}, DType::Bool, Distribution::bernoulli(0.5), 7}, {}),
            meta({0}, DType::Bool));
}

TEST(IrRandom, RejectsBadArguments) {
  EXPECT_EQ(infer_error(Random{{2}, DType::Bool, Distribution::Default, 7}, {}),
            "[random] dtype bool needs the Bernoulli distribution");
  EXPECT_EQ(infer_error(Random{{-2}, DType::F32, Distribution::Default, 7}, {}),
            "[random] shape [-2] has negative dim -2");
  EXPECT_EQ(infer_error(Random{{2}, DType::F32, Distribution::bernoulli(1.5), 7}, {}),
            "[random] bernoulli probability 1.5 is not in [0, 1]");
  EXPECT_EQ(infer_error(Random{{2}, DType::F32, Distribution::uniform(2, 1), 7}, {}),
            "[random] uniform low 2 and high 1 must be finite with low <= high");
  EXPECT_EQ(infer_error(Random{{2}, DType::F32, Distribution::normal(0, -1), 7}, {}),
            "[random] normal mean 0 and std -1 must be finite with std >= 0");
}

}  // namespace
}  // namespace ember::ir
