// Integer division rounded up, shared by the kernels that cut work into pieces.
#pragma once

#include <cstdint>

namespace ember {

/// ceil(a / b) for a >= 0, b >= 1, without forming a + b - 1 (b may be near int64's maximum).
constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return a == 0 ? 0 : (a - 1) / b + 1;
}

}  // namespace ember
