// Helpers for the Tensor API tests: tensors built from literal values on the ndarray device,
// values read back as vectors, and a check that a call throws InvalidArgument naming the op and
// the offending value.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

inline Device device() {
  return Device::ndarray();
}

/// An f32 tensor of shape holding values.
template <std::size_t D>
Tensor<D> floats(const std::vector<float>& values, Shape shape) {
  return Tensor<D>::from_data(TensorData(values, std::move(shape)), device());
}
/// An i64 tensor of shape holding values.
template <std::size_t D>
Tensor<D, Int> ints(const std::vector<int64_t>& values, Shape shape) {
  return Tensor<D, Int>::from_data(TensorData(values, std::move(shape)), device());
}
template <std::size_t D>
Tensor<D, Bool> bools(const std::vector<bool>& values, Shape shape) {
  return Tensor<D, Bool>::from_data(TensorData(values, std::move(shape)), device());
}

/// [[1, 2, 3], [4, 5, 6]] as f32.
inline Tensor<2> x23() {
  return floats<2>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
}
/// [0, 1, ..., n - 1] as f32.
inline Tensor<1> iota(int64_t n) {
  return Tensor<1, Int>::arange(0, n, device()).to_float();
}
/// An f32 tensor of shape holding zeros (for calls that fail on shapes, not values).
inline TensorHandle f32(Shape shape) {
  return ops::zeros(shape, device(), TensorKind::Float);
}

/// The untyped handle of values converted to dtype (reaches dtypes and kinds the typed API
/// would reject at compile time).
inline TensorHandle handle(const std::vector<double>& values, Shape shape, DType dtype) {
  const TensorData data(values, std::move(shape), dtype);
  return ops::from_data(data, device(), kind_of(dtype));
}

template <typename T>
std::vector<T> values(const TensorHandle& h) {
  return ops::into_data(h).to_vector<T>();
}
template <typename T, std::size_t D, typename K>
std::vector<T> values(const Tensor<D, K>& t) {
  return values<T>(t.handle());
}

/// Fails unless f throws InvalidArgument whose message contains every fragment.
template <typename F>
void expect_invalid(F&& f, std::initializer_list<std::string_view> fragments, const char* file,
                    int line) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    for (std::string_view fragment : fragments) {
      if (message.find(fragment) == std::string::npos) {
        ADD_FAILURE_AT(file, line) << "message \"" << message << "\" lacks \"" << fragment << "\"";
      }
    }
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE_AT(file, line) << "expected InvalidArgument, got: " << e.what();
    return;
  }
  ADD_FAILURE_AT(file, line) << "expected InvalidArgument, nothing was thrown";
}

}  // namespace ember::test

/// EXPECT_INVALID(statement, "fragment", ...): statement throws InvalidArgument whose message
/// contains every fragment.
#define EXPECT_INVALID(statement, ...) \
  ::ember::test::expect_invalid([&] { (void)(statement); }, {__VA_ARGS__}, __FILE__, __LINE__)
