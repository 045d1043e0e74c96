#include "checks.h"

#include <cmath>
#include <sstream>

#include "ember/error.h"

namespace ember::optim::detail {
namespace {

void require(bool ok, std::string_view owner, std::string_view what, double value,
             std::string_view rule) {
  if (!ok) {
    fail(owner, std::string(what) + " " + format_number(value) + " must be " + std::string(rule));
  }
}

}  // namespace

void fail(std::string_view owner, std::string_view message) {
  throw InvalidArgument("[" + std::string(owner) + "] " + std::string(message));
}

std::string format_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string describe(const Shape& shape, DType dtype) {
  std::ostringstream out;
  out << shape << " (" << dtype << ')';
  return out.str();
}

std::string describe(const TensorHandle& tensor) {
  return describe(tensor.shape(), tensor.dtype());
}

void check_non_negative(std::string_view owner, std::string_view what, double value) {
  require(std::isfinite(value) && value >= 0, owner, what, value, "finite and >= 0");
}

void check_positive(std::string_view owner, std::string_view what, double value) {
  require(std::isfinite(value) && value > 0, owner, what, value, "finite and > 0");
}

void check_fraction(std::string_view owner, std::string_view what, double value) {
  require(value >= 0 && value < 1, owner, what, value, "in [0, 1)");
}

void check_finite(std::string_view owner, std::string_view what, double value) {
  require(std::isfinite(value), owner, what, value, "finite");
}

void check_count(std::string_view owner, std::string_view what, int64_t value) {
  if (value < 1) fail(owner, std::string(what) + " " + std::to_string(value) + " must be >= 1");
}

bool is_counter(double value) {
  // 2^53: beyond it a double no longer holds every integer.
  return value >= 0 && value <= 9007199254740992.0 && std::floor(value) == value;
}

}  // namespace ember::optim::detail
