// Helpers of the ndarray tests: run one op on a fresh backend the way a device does (outputs'
// metadata from ir::infer) and compare the results with hand-computed values.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "backends/ndarray/ndarray_backend.h"
#include "ember/error.h"
#include "ember/tensor_data.h"
#include "ir/ops.h"

namespace ember::ndarray::test {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// values as a tensor of shape and dtype.
inline TensorData values_of(const std::vector<double>& values, Shape shape,
                            DType dtype = DType::F64) {
  return TensorData(values, std::move(shape), dtype);
}
/// A [1, 1, n] f64 tensor.
inline TensorData row(const std::vector<double>& values) {
  return values_of(values, Shape{1, 1, static_cast<int64_t>(values.size())});
}
/// Deterministic f64 values in [-1, 1] of shape, different for each seed.
inline TensorData wavy(const Shape& shape, double seed) {
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin(seed + 1.7 * static_cast<double>(i));
  return TensorData(values, shape);
}
/// The inner product of two tensors' values (for adjoint checks).
inline double dot(const TensorData& a, const TensorData& b) {
  const std::vector<double> x = a.to_vector<double>();
  const std::vector<double> y = b.to_vector<double>();
  return std::inner_product(x.begin(), x.end(), y.begin(), 0.0);
}

/// Every output of op run on inputs.
inline std::vector<TensorData> run_all(const ir::Op& op, const std::vector<TensorData>& inputs) {
  NdArrayBackend backend;
  std::vector<backend::Operand> operands;
  std::vector<ir::TensorMeta> metas;
  for (const TensorData& input : inputs) {
    metas.push_back({input.shape(), input.dtype()});
    operands.push_back({backend.write(input), metas.back()});
  }
  const ir::OutputMetas outputs = ir::infer(op, metas);
  const backend::Outputs buffers = backend.execute(op, operands, outputs);
  std::vector<TensorData> results;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    results.push_back(backend.read({buffers[i], outputs[i]}));
  }
  return results;
}

/// The single output of op run on inputs.
inline TensorData run(const ir::Op& op, const std::vector<TensorData>& inputs = {}) {
  std::vector<TensorData> results = run_all(op, inputs);
  EXPECT_EQ(results.size(), 1u) << ir::name(op);
  return results.at(0);
}

/// The message of the InvalidArgument that running op throws; fails the test when none is.
inline std::string error_of(const ir::Op& op, const std::vector<TensorData>& inputs) {
  try {
    run_all(op, inputs);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected ember::InvalidArgument from " << ir::name(op);
  return {};
}

/// Equal values, a NaN equal to a NaN (compared in double, exact for every value tested here).
template <typename T>
bool same_value(T a, T b) {
  const double x = detail::convert_element<double>(a);
  const double y = detail::convert_element<double>(b);
  return (std::isnan(x) && std::isnan(y)) || x == y;
}

/// Expects data to be exactly shape, dtype of T and values.
template <typename T>
void expect_data(const TensorData& data, const Shape& shape, const std::vector<T>& values) {
  EXPECT_EQ(data.shape(), shape);
  ASSERT_EQ(data.dtype(), dtype_of<T>());
  const auto actual = data.as<T>();
  ASSERT_EQ(actual.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_TRUE(same_value(actual[i], values[i]))
        << "element " << i << ": got " << detail::convert_element<double>(actual[i])
        << ", expected " << detail::convert_element<double>(values[i]);
  }
}

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();

}  // namespace ember::ndarray::test
