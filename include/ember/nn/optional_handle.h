// The handle of an optional param or buffer, as the ember::ops functions take optional tensors.
#pragma once

#include <optional>

#include "ember/functional_common.h"
#include "ember/nn/param.h"

namespace ember::nn {

/// member's tensor, or nullopt when the module has none (a layer built without bias).
template <typename ParamOrBuffer>
ops::OptionalHandle optional_handle(const std::optional<ParamOrBuffer>& member) {
  if (!member) return std::nullopt;
  return member->handle();
}

}  // namespace ember::nn
