#include "ember/dtype.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "test_helpers.h"

namespace ember {
namespace {

using test::invalid_argument_message;
using test::printed;

// Expected facts, one row per dtype in declaration order, written from the dtype list in
// DESIGN.md (sizes are those of the C++ element types).
struct Expected {
  DType dtype;
  const char* name;
  std::size_t size;
  bool is_float, is_signed_int, is_unsigned_int, is_bool;
};
constexpr std::array<Expected, 13> kExpected = {{
    {DType::F64, "f64", 8, true, false, false, false},
    {DType::F32, "f32", 4, true, false, false, false},
    {DType::F16, "f16", 2, true, false, false, false},
    {DType::BF16, "bf16", 2, true, false, false, false},
    {DType::I64, "i64", 8, false, true, false, false},
    {DType::I32, "i32", 4, false, true, false, false},
    {DType::I16, "i16", 2, false, true, false, false},
    {DType::I8, "i8", 1, false, true, false, false},
    {DType::U64, "u64", 8, false, false, true, false},
    {DType::U32, "u32", 4, false, false, true, false},
    {DType::U16, "u16", 2, false, false, true, false},
    {DType::U8, "u8", 1, false, false, true, false},
    {DType::Bool, "bool", 1, false, false, false, true},
}};

TEST(DType, FactsOfEveryDType) {
  ASSERT_EQ(std::size(kAllDTypes), kExpected.size());
  for (std::size_t i = 0; i < kExpected.size(); ++i) {
    const Expected& e = kExpected[i];
    SCOPED_TRACE(e.name);
    EXPECT_EQ(kAllDTypes[i], e.dtype);
    EXPECT_EQ(dtype_name(e.dtype), e.name);
    EXPECT_EQ(printed(e.dtype), e.name);
    EXPECT_EQ(dtype_size(e.dtype), e.size);
    EXPECT_EQ(is_float(e.dtype), e.is_float);
    EXPECT_EQ(is_signed_int(e.dtype), e.is_signed_int);
    EXPECT_EQ(is_unsigned_int(e.dtype), e.is_unsigned_int);
    EXPECT_EQ(is_int(e.dtype), e.is_signed_int || e.is_unsigned_int);
    EXPECT_EQ(is_bool(e.dtype), e.is_bool);
  }
}

TEST(DType, SizeMatchesTheElementType) {
  for (DType d : kAllDTypes) {
    const std::size_t element_size = visit_dtype(d, []<typename T>() { return sizeof(T); });
    EXPECT_EQ(dtype_size(d), element_size) << d;
    EXPECT_EQ(visit_dtype(d, []<typename T>() { return dtype_of<T>(); }), d);
  }
}

TEST(DType, FromNameInvertsName) {
  for (const Expected& e : kExpected)
    EXPECT_EQ(dtype_from_name(e.name), e.dtype) << e.name;
  EXPECT_EQ(dtype_from_name("F32"), std::nullopt);
  EXPECT_EQ(dtype_from_name("float32"), std::nullopt);
  EXPECT_EQ(dtype_from_name(""), std::nullopt);
}

TEST(DType, KindDTypesConvertBothWays) {
  const std::array<std::pair<FloatDType, DType>, 4> floats = {{{FloatDType::F64, DType::F64},
                                                               {FloatDType::F32, DType::F32},
                                                               {FloatDType::F16, DType::F16},
                                                               {FloatDType::BF16, DType::BF16}}};
  for (auto [kind_dtype, dtype] : floats) {
    EXPECT_EQ(to_dtype(kind_dtype), dtype);
    EXPECT_EQ(to_float_dtype(dtype), kind_dtype);
    EXPECT_EQ(DType(DTypeArg(kind_dtype)), dtype);
    EXPECT_EQ(printed(kind_dtype), dtype_name(dtype));
  }
  const std::array<std::pair<IntDType, DType>, 8> ints = {{{IntDType::I64, DType::I64},
                                                           {IntDType::I32, DType::I32},
                                                           {IntDType::I16, DType::I16},
                                                           {IntDType::I8, DType::I8},
                                                           {IntDType::U64, DType::U64},
                                                           {IntDType::U32, DType::U32},
                                                           {IntDType::U16, DType::U16},
                                                           {IntDType::U8, DType::U8}}};
  for (auto [kind_dtype, dtype] : ints) {
    EXPECT_EQ(to_dtype(kind_dtype), dtype);
    EXPECT_EQ(to_int_dtype(dtype), kind_dtype);
    EXPECT_EQ(DType(DTypeArg(kind_dtype)), dtype);
    EXPECT_EQ(printed(kind_dtype), dtype_name(dtype));
  }
  EXPECT_EQ(to_dtype(BoolDType::Bool), DType::Bool);
  EXPECT_EQ(DType(DTypeArg(BoolDType::Bool)), DType::Bool);
}

TEST(DType, KindMismatchIsInvalidArgument) {
  EXPECT_EQ(invalid_argument_message([] { to_float_dtype(DType::I64); }),
            "[dtype] i64 is not a float dtype");
  EXPECT_EQ(invalid_argument_message([] { to_float_dtype(DType::Bool); }),
            "[dtype] bool is not a float dtype");
  EXPECT_EQ(invalid_argument_message([] { to_int_dtype(DType::F32); }),
            "[dtype] f32 is not an int dtype");
  EXPECT_EQ(invalid_argument_message([] { to_int_dtype(DType::Bool); }),
            "[dtype] bool is not an int dtype");
}

TEST(DType, ValueOutsideTheEnumerationIsInvalidArgument) {
  const auto bad = static_cast<DType>(13);
  EXPECT_EQ(invalid_argument_message([&] { dtype_size(bad); }), "[dtype] invalid DType value 13");
  EXPECT_THROW(dtype_name(bad), InvalidArgument);
  EXPECT_THROW(is_float(bad), InvalidArgument);
  EXPECT_EQ(invalid_argument_message([] { to_dtype(static_cast<FloatDType>(4)); }),
            "[dtype] invalid FloatDType value 4");
  EXPECT_EQ(invalid_argument_message([] { to_dtype(static_cast<IntDType>(8)); }),
            "[dtype] invalid IntDType value 8");
}

// promote_types for every pair. Rows and columns in kAllDTypes order. The entries among
// f64 f32 f16 bf16 i64 i32 i16 i8 u8 bool are PyTorch's documented torch.promote_types table
// (c10/core/ScalarType.cpp, _promoteTypesLookup). PyTorch refuses u16/u32/u64 with anything but
// a float or themselves; those entries are NumPy's np.promote_types, except u64 with a signed
// int, where NumPy gives f64 and ember keeps the int kind with i64 (see dtype.h).
constexpr const char* kPromotion[13][13] = {
    // f64    f32    f16    bf16    i64    i32    i16    i8     u64    u32    u16    u8     bool
    {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},
    {"f64", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32"},
    {"f64", "f32", "f16", "f32", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16"},
    {"f64", "f32", "f32", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16",
     "bf16"},
    {"f64", "f32", "f16", "bf16", "i64", "i64", "i64", "i64", "i64", "i64", "i64", "i64", "i64"},
    {"f64", "f32", "f16", "bf16", "i64", "i32", "i32", "i32", "i64", "i64", "i32", "i32", "i32"},
    {"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i16", "i64", "i64", "i32", "i16", "i16"},
    {"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i64", "i64", "i32", "i16", "i8"},
    {"f64", "f32", "f16", "bf16", "i64", "i64", "i64", "i64", "u64", "u64", "u64", "u64", "u64"},
    {"f64", "f32", "f16", "bf16", "i64", "i64", "i64", "i64", "u64", "u32", "u32", "u32", "u32"},
    {"f64", "f32", "f16", "bf16", "i64", "i32", "i32", "i32", "u64", "u32", "u16", "u16", "u16"},
    {"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i16", "u64", "u32", "u16", "u8", "u8"},
    {"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "bool"},
};

TEST(DType, PromoteTypesMatchesTheTableForEveryPair) {
  for (std::size_t row = 0; row < 13; ++row) {
    for (std::size_t col = 0; col < 13; ++col) {
      const DType a = kAllDTypes[row];
      const DType b = kAllDTypes[col];
      EXPECT_EQ(dtype_name(promote_types(a, b)), kPromotion[row][col]) << a << " with " << b;
    }
  }
}

TEST(DType, PromotionTableIsSymmetric) {
  // Guards the hand-written table itself: promotion does not depend on operand order.
  for (std::size_t row = 0; row < 13; ++row) {
    for (std::size_t col = 0; col < 13; ++col) {
      EXPECT_EQ(std::string(kPromotion[row][col]), kPromotion[col][row]) << row << ", " << col;
    }
  }
}

}  // namespace
}  // namespace ember
