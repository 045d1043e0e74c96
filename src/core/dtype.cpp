// DType facts (name, size, category) from one table, kind conversions and type promotion.
#include "ember/dtype.h"

#include <algorithm>
#include <array>
#include <string>

#include "ember/error.h"

namespace ember {
namespace {

enum class Category : uint8_t { Float, SignedInt, UnsignedInt, Bool };

struct DTypeInfo {
  std::string_view name;
  std::size_t size;
  Category category;
};

// Indexed by DType's underlying value, in declaration order.
constexpr std::array<DTypeInfo, 13> kInfo = {{
    {"f64", 8, Category::Float},
    {"f32", 4, Category::Float},
    {"f16", 2, Category::Float},
    {"bf16", 2, Category::Float},
    {"i64", 8, Category::SignedInt},
    {"i32", 4, Category::SignedInt},
    {"i16", 2, Category::SignedInt},
    {"i8", 1, Category::SignedInt},
    {"u64", 8, Category::UnsignedInt},
    {"u32", 4, Category::UnsignedInt},
    {"u16", 2, Category::UnsignedInt},
    {"u8", 1, Category::UnsignedInt},
    {"bool", 1, Category::Bool},
}};
static_assert(kInfo.size() == std::size(kAllDTypes));

constexpr std::array<DType, 4> kFloatDTypes = {DType::F64, DType::F32, DType::F16, DType::BF16};
constexpr std::array<DType, 8> kIntDTypes = {DType::I64, DType::I32, DType::I16, DType::I8,
                                             DType::U64, DType::U32, DType::U16, DType::U8};

[[noreturn]] void fail_invalid(std::size_t index) {
  throw InvalidArgument("[dtype] invalid DType value " + std::to_string(index));
}

/// The table row of d; InvalidArgument for a value outside the enumeration (a bad cast). The
/// error is a call of its own, so that this inlines into the queries (a few run per op).
const DTypeInfo& info(DType d) {
  const auto index = static_cast<std::size_t>(d);
  if (index >= kInfo.size()) [[unlikely]]
    fail_invalid(index);
  return kInfo[index];
}

/// The entry of a kind enum (FloatDType, IntDType) mapping to d, found by position in table.
template <typename KindDType, std::size_t N>
KindDType kind_dtype_of(DType d, const std::array<DType, N>& table, std::string_view kind) {
  const auto* found = std::find(table.begin(), table.end(), d);
  if (found == table.end()) {
    throw InvalidArgument("[dtype] " + std::string(dtype_name(d)) + " is not " + std::string(kind) +
                          " dtype");
  }
  return static_cast<KindDType>(found - table.begin());
}

/// The DType a kind enum value names; InvalidArgument for a value outside the enumeration.
template <typename KindDType, std::size_t N>
DType dtype_of_kind(KindDType d, const std::array<DType, N>& table, std::string_view enum_name) {
  const auto index = static_cast<std::size_t>(d);
  if (index >= N) {
    throw InvalidArgument("[dtype] invalid " + std::string(enum_name) + " value " +
                          std::to_string(index));
  }
  return table[index];
}

DType signed_int_of_size(std::size_t size) {
  switch (size) {
    case 1:
      return DType::I8;
    case 2:
      return DType::I16;
    case 4:
      return DType::I32;
    default:
      return DType::I64;
  }
}

DType promote_floats(DType a, DType b) {
  // f16 and bf16 each lack range or precision the other has; f32 holds both exactly.
  if (dtype_size(a) == dtype_size(b)) return DType::F32;
  return dtype_size(a) > dtype_size(b) ? a : b;
}

DType promote_ints(DType a, DType b) {
  if (is_signed_int(a) == is_signed_int(b)) return dtype_size(a) >= dtype_size(b) ? a : b;
  const DType signed_one = is_signed_int(a) ? a : b;
  const DType unsigned_one = is_signed_int(a) ? b : a;
  if (dtype_size(signed_one) > dtype_size(unsigned_one)) return signed_one;
  // The next wider signed int holds both; u64 has none, and takes i64 (see the header).
  return signed_int_of_size(std::min<std::size_t>(2 * dtype_size(unsigned_one), 8));
}

}  // namespace

DType to_dtype(FloatDType d) {
  return dtype_of_kind(d, kFloatDTypes, "FloatDType");
}
DType to_dtype(IntDType d) {
  return dtype_of_kind(d, kIntDTypes, "IntDType");
}
DType to_dtype(BoolDType) {
  return DType::Bool;
}
FloatDType to_float_dtype(DType d) {
  return kind_dtype_of<FloatDType>(d, kFloatDTypes, "a float");
}
IntDType to_int_dtype(DType d) {
  return kind_dtype_of<IntDType>(d, kIntDTypes, "an int");
}

std::size_t dtype_size(DType d) {
  return info(d).size;
}
bool is_float(DType d) {
  return info(d).category == Category::Float;
}
bool is_int(DType d) {
  return is_signed_int(d) || is_unsigned_int(d);
}
bool is_signed_int(DType d) {
  return info(d).category == Category::SignedInt;
}
bool is_unsigned_int(DType d) {
  return info(d).category == Category::UnsignedInt;
}
bool is_bool(DType d) {
  return info(d).category == Category::Bool;
}
std::string_view dtype_name(DType d) {
  return info(d).name;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  const auto* found = std::find_if(kInfo.begin(), kInfo.end(),
                                   [&](const DTypeInfo& row) { return row.name == name; });
  if (found == kInfo.end()) return std::nullopt;
  return static_cast<DType>(found - kInfo.begin());
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (is_bool(a)) return b;
  if (is_bool(b)) return a;
  if (is_float(a) != is_float(b)) return is_float(a) ? a : b;
  return is_float(a) ? promote_floats(a, b) : promote_ints(a, b);
}

std::ostream& operator<<(std::ostream& os, DType d) {
  return os << dtype_name(d);
}
std::ostream& operator<<(std::ostream& os, FloatDType d) {
  return os << to_dtype(d);
}
std::ostream& operator<<(std::ostream& os, IntDType d) {
  return os << to_dtype(d);
}

}  // namespace ember
