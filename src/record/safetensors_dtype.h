// The safetensors names of ember's dtypes, and the order the Python package writes them in.
#pragma once

#include <optional>
#include <string_view>

#include "ember/dtype.h"

namespace ember::record::detail {

/// "F32", "BOOL", ...: the name a safetensors header gives dtype.
std::string_view safetensors_name(DType dtype);
/// The dtype a header names; nullopt for a name ember does not know (F8_E4M3, ...).
std::optional<DType> dtype_from_safetensors_name(std::string_view name);
/// dtype's position in the package's list of dtypes (BOOL first, U64 last, ordered by element
/// size); the package writes the tensor of the larger position first.
int safetensors_rank(DType dtype);

}  // namespace ember::record::detail
