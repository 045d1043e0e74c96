// What every fuzz target shares (docs/fuzzing.md): bad input must be refused with an
// ember::Error; anything else that goes wrong is a defect that crashes the fuzzer, which then
// saves the input that caused it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <type_traits>

#include "ember/error.h"

namespace ember::fuzz {

/// The fuzzer's input.
inline std::span<const std::byte> input_bytes(const uint8_t* data, std::size_t size) {
  return std::as_bytes(std::span(data, size));
}

/// parse()'s result, or nullopt when parse refused its input with an ember::Error: the outcome
/// ember promises for bad input. Any other exception (std::bad_alloc, std::out_of_range, a JSON
/// library's, ...) escapes LLVMFuzzerTestOneInput, so std::terminate aborts and libFuzzer
/// reports a crash. Only the parse of the fuzzer's input goes through here: an ember::Error from
/// the round trip that follows (a writer refusing what the reader accepted) crashes too.
template <typename Parse>
std::optional<std::invoke_result_t<Parse>> parsed_or_refused(Parse&& parse) {
  try {
    return parse();
  } catch (const Error&) {
    return std::nullopt;
  }
}

/// Crashes, naming the property, unless it holds.
inline void require(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "ember fuzz target: property violated: %s\n", property);
  __builtin_trap();
}

}  // namespace ember::fuzz
