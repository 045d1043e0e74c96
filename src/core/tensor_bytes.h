// The size rule's wording for ember's own checks; the rule itself is public
// (ember/tensor_bytes.h), so that the file readers of the library layers apply it too.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "ember/tensor_bytes.h"

namespace ember::detail {

using ember::checked_tensor_bytes;

/// How the checks word a refusal, after the tensor's shape and dtype.
inline constexpr std::string_view kTooLargeForInt64 =
    "is too large: its bytes do not fit in int64 (at most 9223372036854775807)";

/// Refuses a Bool tensor's bytes unless each is 0 or 1 (reading another as a bool is undefined
/// behaviour): InvalidArgument "[what] bool byte i is v, which is neither 0 nor 1".
void check_bool_bytes(std::span<const std::byte> bytes, std::string_view what);

}  // namespace ember::detail
