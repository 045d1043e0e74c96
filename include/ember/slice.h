// Slice: a Python-style range of one dimension for Tensor::slice and slice_assign.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>

namespace ember {

/// [start, end) with step, exactly as Python's start:end:step. Negative start/end count from the
/// end; an empty bound means "from the first" / "to the last" in the direction of step; a
/// negative step walks backwards. Out-of-range bounds clamp, as in Python.
struct Slice {
  std::optional<int64_t> start;
  std::optional<int64_t> end;
  int64_t step = 1;

  /// The whole dimension.
  Slice() = default;
  /// The single index i, keeping the dimension (size 1).
  Slice(int64_t i)
      : start(i), end(i == -1 ? std::nullopt : std::optional<int64_t>(i + 1)) {}  // NOLINT
  Slice(std::optional<int64_t> s, std::optional<int64_t> e, int64_t st = 1)
      : start(s), end(e), step(st) {}
  static Slice all() { return {}; }
  static Slice from(int64_t s) { return {s, std::nullopt}; }
  static Slice to(int64_t e) { return {std::nullopt, e}; }
};

/// Prints Python's spelling: "1:4:2", "2:", ":" (the whole dimension), "::-1".
std::ostream& operator<<(std::ostream& os, const Slice& s);

}  // namespace ember
