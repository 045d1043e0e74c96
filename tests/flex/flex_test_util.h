// Helpers of the flex tests: tensors with known values, the view behind a flex tensor (to
// observe zero-copy), and running one computation on flex and on ndarray (the oracle).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/flex/flex_backend.h"
#include "backends/flex/view.h"
#include "backends/ndarray/ndarray_backend.h"
#include "ember/device.h"
#include "ember/tensor_data.h"
#include "ember/tensor_ops.h"
#include "tensor/tensor_impl.h"

namespace ember::flex::test {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// |actual - exact| in units of the last place of the float nearest to exact.
inline double ulp_error(float actual, double exact) {
  const int exponent = std::max(std::ilogb(static_cast<float>(exact)), -126);
  return std::abs(actual - exact) / std::ldexp(1.0, exponent - 23);
}

/// The view behind a tensor of the flex device.
inline const View& view_of(const TensorHandle& t) {
  const auto* buffer = dynamic_cast<const FlexBuffer*>(t.impl()->buffer.get());
  if (buffer == nullptr) throw std::logic_error("not a flex tensor");
  return buffer->view;
}

/// Whether two flex tensors share one storage (no data was moved between them).
inline bool shares_storage(const TensorHandle& a, const TensorHandle& b) {
  return view_of(a).storage == view_of(b).storage;
}

/// Host values of shape and dtype: 0, 1, 2, ...
inline TensorData iota_data(const Shape& shape, DType dtype = DType::F32) {
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  std::iota(values.begin(), values.end(), 0.0);
  return TensorData(values, shape, dtype);
}

/// Host values of shape and dtype of both signs in [-2, 2): (i * 37 mod 101) / 25 - 2.
inline TensorData varied_data(const Shape& shape, DType dtype = DType::F32) {
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<double>(i * 37 % 101) / 25.0 - 2.0;
  return TensorData(values, shape, dtype);
}

/// Host values of shape and dtype in [0, 1): (i * 37 mod 101) / 101.
inline TensorData positive_data(const Shape& shape, DType dtype = DType::F32) {
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<double>(i * 37 % 101) / 101.0;
  return TensorData(values, shape, dtype);
}

inline TensorHandle iota(const Shape& shape, const Device& device, DType dtype = DType::F32) {
  return ops::from_data(iota_data(shape, dtype), device, TensorKind::Float);
}
inline TensorHandle varied(const Shape& shape, const Device& device, DType dtype = DType::F32) {
  return ops::from_data(varied_data(shape, dtype), device, TensorKind::Float);
}
inline TensorHandle positive(const Shape& shape, const Device& device, DType dtype = DType::F32) {
  return ops::from_data(positive_data(shape, dtype), device, TensorKind::Float);
}

/// Expects actual to have expected's dtype (bf16 or f16), shape and values within
/// torch.testing.assert_close's default tolerances: rtol 1.6e-2 (bf16) or 1e-3 (f16), atol 1e-5.
inline void expect_close_as_torch(const TensorData& actual, const TensorData& expected,
                                  const std::string& what) {
  std::string why;
  EXPECT_EQ(actual.dtype(), expected.dtype()) << what;
  const Tolerance torch{expected.dtype() == DType::BF16 ? 1.6e-2 : 1e-3, 1e-5};
  EXPECT_TRUE(actual.approx_equal(expected, torch, &why)) << what << ": " << why;
}

/// Expects actual to have expected's dtype, shape and values within the dtype's tolerance.
inline void expect_close(const TensorData& actual, const TensorData& expected,
                         const std::string& what) {
  std::string why;
  EXPECT_EQ(actual.dtype(), expected.dtype()) << what;
  EXPECT_TRUE(actual.approx_equal(expected, Tolerance::for_dtype(expected.dtype()), &why))
      << what << ": " << why;
}

/// Runs compute on flex and on ndarray and expects the same values.
inline void expect_matches_ndarray(const std::function<TensorHandle(const Device&)>& compute,
                                   const std::string& what) {
  expect_close(ops::into_data(compute(Device::flex())), ops::into_data(compute(Device::ndarray())),
               what);
}

/// Every output of op run on inputs by backend (outputs' metadata from ir::infer).
inline std::vector<TensorData> run_on(backend::Backend& backend, const ir::Op& op,
                                      const std::vector<TensorData>& inputs) {
  std::vector<backend::Operand> operands;
  std::vector<ir::TensorMeta> metas;
  for (const TensorData& input : inputs) {
    metas.push_back({input.shape(), input.dtype()});
    operands.push_back({backend.write(input), metas.back()});
  }
  const ir::OutputMetas outputs = ir::infer(op, metas);
  const backend::Outputs buffers = backend.execute(op, operands, outputs);
  std::vector<TensorData> results;
  for (std::size_t i = 0; i < buffers.size(); ++i)
    results.push_back(backend.read({buffers[i], outputs[i]}));
  return results;
}

/// Runs op on the flex and the ndarray backends and checks each output pair with
/// expect(actual, expected, what).
template <typename Expect>
void compare_backends(const ir::Op& op, const std::vector<TensorData>& inputs,
                      const std::string& what, const Expect& expect) {
  FlexBackend flex;
  ndarray::NdArrayBackend reference;
  const std::vector<TensorData> expected = run_on(reference, op, inputs);
  const std::vector<TensorData> actual = run_on(flex, op, inputs);
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i)
    expect(actual[i], expected[i], what + " output " + std::to_string(i));
}

/// Runs op on the flex and the ndarray backends and expects the same outputs.
inline void expect_backends_agree(const ir::Op& op, const std::vector<TensorData>& inputs,
                                  const std::string& what) {
  compare_backends(op, inputs, what, expect_close);
}

}  // namespace ember::flex::test
