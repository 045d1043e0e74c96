#include "safetensors_dtype.h"

#include <array>
#include <iterator>
#include <utility>

namespace ember::record::detail {
namespace {

/// The dtypes ember shares with the format, in the order of the package's Dtype enum (which it
/// documents as "increasing alignment order" and sorts by when writing).
constexpr std::array<std::pair<DType, std::string_view>, 13> kDTypes = {{
    {DType::Bool, "BOOL"},
    {DType::U8, "U8"},
    {DType::I8, "I8"},
    {DType::I16, "I16"},
    {DType::U16, "U16"},
    {DType::F16, "F16"},
    {DType::BF16, "BF16"},
    {DType::I32, "I32"},
    {DType::U32, "U32"},
    {DType::F32, "F32"},
    {DType::F64, "F64"},
    {DType::I64, "I64"},
    {DType::U64, "U64"},
}};
static_assert(kDTypes.size() == std::size(kAllDTypes), "every DType needs a safetensors name");

}  // namespace

int safetensors_rank(DType dtype) {
  for (std::size_t i = 0; i < kDTypes.size(); ++i) {
    if (kDTypes[i].first == dtype) return static_cast<int>(i);
  }
  return -1;  // unreachable: every DType is listed
}

std::string_view safetensors_name(DType dtype) {
  return kDTypes[static_cast<std::size_t>(safetensors_rank(dtype))].second;
}

std::optional<DType> dtype_from_safetensors_name(std::string_view name) {
  for (const auto& [dtype, dtype_name] : kDTypes) {
    if (dtype_name == name) return dtype;
  }
  return std::nullopt;
}

}  // namespace ember::record::detail
