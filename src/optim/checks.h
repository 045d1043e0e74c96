// Argument checks and message pieces shared by the optimizers, the schedulers and the gradient
// utilities; each throws InvalidArgument "[owner] ..." naming the value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ember/dtype.h"
#include "ember/shape.h"
#include "ember/tensor_handle.h"

namespace ember::optim::detail {

/// Throws InvalidArgument "[owner] message".
[[noreturn]] void fail(std::string_view owner, std::string_view message);

/// value as a message shows it ("0.9", "-1", "nan").
std::string format_number(double value);
/// "[2, 3] (f32)".
std::string describe(const Shape& shape, DType dtype);
std::string describe(const TensorHandle& tensor);

/// Finite and >= 0.
void check_non_negative(std::string_view owner, std::string_view what, double value);
/// Finite and > 0.
void check_positive(std::string_view owner, std::string_view what, double value);
/// In [0, 1).
void check_fraction(std::string_view owner, std::string_view what, double value);
/// Finite.
void check_finite(std::string_view owner, std::string_view what, double value);
/// >= 1.
void check_count(std::string_view owner, std::string_view what, int64_t value);

/// Whether value is a step counter: a non-negative integer, exact in a double.
bool is_counter(double value);

}  // namespace ember::optim::detail
