// ArgList: the arguments of one queued op or fused instruction, held inline. Fusible ops read at
// most kMaxArgs values (where: condition, lhs, rhs; fusible.h refuses more), so a fixed array
// serves every one of them. Note: a std::vector here cost a heap allocation per queued op, a
// large share of an op's overhead on tiny tensors.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "ember/error.h"

namespace ember::fusion {

/// The most values a fusible op reads.
inline constexpr std::size_t kMaxArgs = 3;

template <typename T>
class ArgList {
 public:
  ArgList() = default;

  /// Appends value; ExecutionError past kMaxArgs (fusible.h keeps such ops out of the queue).
  void push_back(T value) {
    if (size_ == kMaxArgs) throw ExecutionError("[fusion] an op reads more than 3 values");
    values_[size_++] = value;
  }
  std::size_t size() const { return size_; }
  const T& operator[](std::size_t i) const { return values_[i]; }
  const T* begin() const { return values_.data(); }
  const T* end() const { return values_.data() + size_; }

 private:
  std::array<T, kMaxArgs> values_{};
  uint8_t size_ = 0;
};

}  // namespace ember::fusion
