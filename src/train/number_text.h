// Numbers in the files a run writes (metrics.csv, curves.svg, checkpoint metadata), written and
// read with std::to_chars / std::from_chars: the same text in every locale (an ostream follows
// the global C++ locale, and a comma locale wrote "1.234,0,5" into the CSV).
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ember::train::detail {

/// The shortest decimal that reads back as exactly v: "0.1", "1e+20", "inf", "nan".
inline std::string exact_text(double v) {
  char buffer[32];
  return {buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr};
}

/// v to `significant` significant digits, trailing zeros dropped: "0.8765", "1.2e+03".
inline std::string rounded_text(double v, int significant) {
  char buffer[64];
  return {buffer,
          std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::general, significant)
              .ptr};
}

/// text as a whole number of type T; nullopt for anything else (empty, trailing characters,
/// out of range).
template <typename T>
std::optional<T> parse_number(std::string_view text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace ember::train::detail
