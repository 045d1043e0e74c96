#include "interop/dlpack_dtype.h"

#include <optional>

#include "tensor/check.h"

namespace ember::interop {
namespace {

/// The dtypes of each code, by their bits; nullopt for bits the code does not have.
std::optional<DType> dtype_of(uint8_t code, uint8_t bits) {
  switch (code) {
    case kDLFloat:
      if (bits == 16) return DType::F16;
      if (bits == 32) return DType::F32;
      if (bits == 64) return DType::F64;
      return std::nullopt;
    case kDLBfloat:
      return bits == 16 ? std::optional(DType::BF16) : std::nullopt;
    case kDLInt:
      if (bits == 8) return DType::I8;
      if (bits == 16) return DType::I16;
      if (bits == 32) return DType::I32;
      if (bits == 64) return DType::I64;
      return std::nullopt;
    case kDLUInt:
      if (bits == 8) return DType::U8;
      if (bits == 16) return DType::U16;
      if (bits == 32) return DType::U32;
      if (bits == 64) return DType::U64;
      return std::nullopt;
    case kDLBoolCode:
      return bits == 8 ? std::optional(DType::Bool) : std::nullopt;
    default:
      return std::nullopt;
  }
}

uint8_t code_of(DType dtype) {
  if (is_float(dtype)) return dtype == DType::BF16 ? kDLBfloat : kDLFloat;
  if (is_signed_int(dtype)) return kDLInt;
  return kDLUInt;  // unsigned, and Bool (DLPack 0.6 has no bool code)
}

}  // namespace

DLDataType to_dlpack_dtype(DType dtype) {
  return {code_of(dtype), static_cast<uint8_t>(dtype_size(dtype) * 8), 1};
}

DType from_dlpack_dtype(const DLDataType& dtype, std::string_view op) {
  const std::optional<DType> ember =
      dtype.lanes == 1 ? dtype_of(dtype.code, dtype.bits) : std::nullopt;
  if (!ember) {
    tensor::fail(op, "dtype (code ", int{dtype.code}, ", bits ", int{dtype.bits}, ", lanes ",
                 dtype.lanes,
                 ") has no ember dtype: ember takes kDLFloat 16/32/64, kDLBfloat 16, kDLInt and "
                 "kDLUInt 8/16/32/64 and kDLBool 8, one lane each");
  }
  return *ember;
}

}  // namespace ember::interop
