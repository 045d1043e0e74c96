// The size rule's wording for ember's own checks; the rule itself is public
// (ember/tensor_bytes.h), so that the file readers of the library layers apply it too.
#pragma once

#include <string_view>

#include "ember/tensor_bytes.h"

namespace ember::detail {

using ember::checked_tensor_bytes;

/// How the checks word a refusal, after the tensor's shape and dtype.
inline constexpr std::string_view kTooLargeForInt64 =
    "is too large: its bytes do not fit in int64 (at most 9223372036854775807)";

}  // namespace ember::detail
