// Spares<T>: a bounded stack of values no longer needed (shapes, stride vectors) whose memory
// later copies reuse: assigning into a kept value reuses its capacity where a fresh copy would
// allocate (each a visible part of an op on a tiny tensor).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace ember::detail {

template <typename T>
class Spares {
 public:
  explicit Spares(std::size_t capacity) { kept_.reserve(capacity); }

  /// Keeps value's memory while there is room. Never allocates (the room is reserved up front),
  /// so it may run in a destructor.
  void keep(T&& value) noexcept {
    if (kept_.size() < kept_.capacity()) kept_.push_back(std::move(value));
  }
  /// A kept value to assign into, or a fresh one when none is kept.
  T take() {
    if (kept_.empty()) return T{};
    T value = std::move(kept_.back());
    kept_.pop_back();
    return value;
  }
  /// A copy of value, in a kept value's memory when there is one.
  T copy(const T& value) {
    if (kept_.empty()) return value;
    T result = take();
    result = value;
    return result;
  }

 private:
  std::vector<T> kept_;
};

}  // namespace ember::detail
