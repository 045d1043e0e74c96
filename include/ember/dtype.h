// Element types. DType names every storage type; FloatDType, IntDType and BoolDType name the
// subsets a tensor kind may use and convert implicitly to DType.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "ember/float16.h"

namespace ember {

enum class DType : uint8_t { F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, Bool };

/// All dtypes, in declaration order (for tests and enumeration).
inline constexpr DType kAllDTypes[] = {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64,
                                       DType::I32, DType::I16, DType::I8,  DType::U64,  DType::U32,
                                       DType::U16, DType::U8,  DType::Bool};

/// Float dtypes a Float tensor may hold.
enum class FloatDType : uint8_t { F64, F32, F16, BF16 };
/// Integer dtypes an Int tensor may hold.
enum class IntDType : uint8_t { I64, I32, I16, I8, U64, U32, U16, U8 };
/// The dtype a Bool tensor holds.
enum class BoolDType : uint8_t { Bool };

/// Converts a kind-restricted dtype to DType (implicitly, through DTypeArg or to_dtype).
DType to_dtype(FloatDType d);
DType to_dtype(IntDType d);
DType to_dtype(BoolDType d);
/// The FloatDType / IntDType equal to d; InvalidArgument when d is of another kind.
FloatDType to_float_dtype(DType d);
IntDType to_int_dtype(DType d);

/// Accepts a DType, FloatDType, IntDType or BoolDType where an API takes "any dtype".
struct DTypeArg {
  DType value;
  DTypeArg(DType d) : value(d) {}  // NOLINT: implicit on purpose
  DTypeArg(FloatDType d) : value(to_dtype(d)) {}
  DTypeArg(IntDType d) : value(to_dtype(d)) {}
  DTypeArg(BoolDType d) : value(to_dtype(d)) {}
  operator DType() const { return value; }  // NOLINT
};

/// Size of one element in bytes (Bool is one byte).
std::size_t dtype_size(DType d);
bool is_float(DType d);
bool is_int(DType d);  ///< signed or unsigned integer
bool is_signed_int(DType d);
bool is_unsigned_int(DType d);
bool is_bool(DType d);
/// "f32", "i64", "bool", ...
std::string_view dtype_name(DType d);
/// Inverse of dtype_name; nullopt for an unknown name.
std::optional<DType> dtype_from_name(std::string_view name);

/// The dtype both operands of a binary op are computed in: float beats int beats bool; within
/// floats the wider wins (f16 with bf16 gives f32); within ints the wider wins, except that a
/// signed int no wider than the unsigned one gives the next wider signed int (u8 with i8 gives
/// i16, u32 with i32 gives i64). This is torch.promote_types wherever PyTorch defines it.
/// PyTorch refuses u16, u32 and u64 with any dtype but a float or itself; ember then follows
/// NumPy, except that u64 with a signed int gives i64 (NumPy gives f64, leaving the int kind),
/// so a u64 value above 2^63 - 1 wraps.
DType promote_types(DType a, DType b);

std::ostream& operator<<(std::ostream& os, DType d);
std::ostream& operator<<(std::ostream& os, FloatDType d);
std::ostream& operator<<(std::ostream& os, IntDType d);

/// The DType of a C++ element type (double→F64, float→F32, Half→F16, BFloat16→BF16,
/// int64_t→I64, ..., uint8_t→U8, bool→Bool).
template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, double>)
    return DType::F64;
  else if constexpr (std::is_same_v<T, float>)
    return DType::F32;
  else if constexpr (std::is_same_v<T, Half>)
    return DType::F16;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return DType::BF16;
  else if constexpr (std::is_same_v<T, bool>)
    return DType::Bool;
  else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, long long>)
    return DType::I64;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::I32;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DType::I16;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::I8;
  else if constexpr (std::is_same_v<T, uint64_t> || std::is_same_v<T, unsigned long long>)
    return DType::U64;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return DType::U32;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return DType::U16;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::U8;
  else
    static_assert(sizeof(T) == 0, "no ember DType for this element type");
}

/// Calls f.template operator()<T>() with T the C++ element type of d.
template <typename F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::F64:
      return f.template operator()<double>();
    case DType::F32:
      return f.template operator()<float>();
    case DType::F16:
      return f.template operator()<Half>();
    case DType::BF16:
      return f.template operator()<BFloat16>();
    case DType::I64:
      return f.template operator()<int64_t>();
    case DType::I32:
      return f.template operator()<int32_t>();
    case DType::I16:
      return f.template operator()<int16_t>();
    case DType::I8:
      return f.template operator()<int8_t>();
    case DType::U64:
      return f.template operator()<uint64_t>();
    case DType::U32:
      return f.template operator()<uint32_t>();
    case DType::U16:
      return f.template operator()<uint16_t>();
    case DType::U8:
      return f.template operator()<uint8_t>();
    case DType::Bool:
      return f.template operator()<bool>();
  }
  return f.template operator()<float>();  // unreachable: every enumerator is handled above
}

}  // namespace ember
