// Number formatting shared by the operator<< of the core value types.
#pragma once

#include <charconv>
#include <concepts>
#include <string>

namespace ember::core {

/// The shortest decimal that reads back as exactly v: "1", "0.1", "1e+20", "inf", "-nan".
template <std::floating_point T>
std::string shortest_decimal(T v) {
  char buffer[64];
  const auto printed = std::to_chars(buffer, buffer + sizeof buffer, v);
  return {buffer, printed.ptr};
}

}  // namespace ember::core
