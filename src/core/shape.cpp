// Shape arithmetic, checked against int64 overflow so a huge shape is an error, not UB.
#include "ember/shape.h"

#include <algorithm>
#include <sstream>

#include "ember/error.h"

namespace ember {
namespace {

[[noreturn]] void fail_too_many_elements(const Shape& shape) {
  std::ostringstream message;
  message << "[Shape] " << shape << " has more elements than int64 can count";
  throw InvalidArgument(message.str());
}

/// a * b; the error is a call of its own, so that this inlines into the loops (num_elements runs
/// a few times per op).
int64_t checked_multiply(int64_t a, int64_t b, const Shape& shape) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) [[unlikely]]
    fail_too_many_elements(shape);
  return product;
}

}  // namespace

int64_t Shape::num_elements() const {
  int64_t count = 1;
  for (int64_t dim : dims_)
    count = checked_multiply(count, dim, *this);
  return count;
}

std::vector<int64_t> Shape::contiguous_strides() const {
  std::vector<int64_t> strides(dims_.size());
  int64_t stride = 1;
  for (std::size_t i = dims_.size(); i-- > 0;) {
    strides[i] = stride;
    stride = checked_multiply(stride, std::max<int64_t>(dims_[i], 1), *this);
  }
  return strides;
}

std::ostream& operator<<(std::ostream& os, const Shape& s) {
  os << '[';
  for (std::size_t i = 0; i < s.rank(); ++i)
    os << (i > 0 ? ", " : "") << s[i];
  return os << ']';
}

}  // namespace ember
