// bf16 and f16 on flex's own kernels (narrow.h, widened.h), on both CPU devices (flex, and cpu,
// whose fusion leaves these dtypes to flex's kernels): each op against the same op in f32 on
// ndarray within the tolerances torch.testing uses for the dtype (bf16 rtol 1.6e-2, f16 rtol 1e-3,
// atol 1e-5), and against ndarray in the same dtype bit for bit where both compute one correctly
// rounded f32 operation and round it once (arithmetic, max, argmax, relu, comparisons, pooling's
// maximum). Shapes span several of the kernels' f32 chunks, with a partial one, broadcasts and a
// transposed input.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/pooling.h"
#include "ember/tensor.h"
#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

using NarrowFn = std::function<TensorHandle(const TensorHandle& a, const TensorHandle& b)>;

struct NarrowCase {
  std::string name;
  NarrowFn fn;
  bool exact;  ///< equal to ndarray's in the same dtype, bit for bit
};

TensorHandle narrow_pool_max(const TensorHandle& x) {
  return module::max_pool2d(Tensor<4>(ops::reshape(x, {2, 3, 25, 20})),
                            module::MaxPoolOptions{.kernel_size = {2}})
      .handle();
}

TensorHandle narrow_pool_avg(const TensorHandle& x) {
  return module::avg_pool2d(Tensor<4>(ops::reshape(x, {2, 3, 25, 20})),
                            module::AvgPoolOptions{.kernel_size = {3}, .stride = {2}})
      .handle();
}

std::vector<NarrowCase> narrow_cases() {
  return {
      {"add", [](auto& a, auto& b) { return ops::add(a, b); }, true},
      {"mul", [](auto& a, auto& b) { return ops::mul(a, b); }, true},
      {"div", [](auto& a, auto& b) { return ops::div(a, ops::add_scalar(ops::abs(b), 0.5)); },
       true},
      {"maximum", [](auto& a, auto& b) { return ops::maximum(a, b); }, true},
      {"add broadcast row", [](auto& a, auto& b) { return ops::add(a, ops::narrow(b, 0, 0, 1)); },
       true},
      {"mul transposed",
       [](auto& a, auto& b) {
         return ops::mul(ops::transpose(ops::reshape(a, {100, 30})),
                         ops::transpose(ops::reshape(b, {100, 30})));
       },
       true},
      // Scalars every dtype holds: ember rounds a scalar to the tensor's dtype first.
      {"sub scalar lhs", [](auto& a, auto&) { return ops::rsub_scalar(a, 0.375); }, true},
      {"mul scalar", [](auto& a, auto&) { return ops::mul_scalar(a, 1.75); }, true},
      {"neg", [](auto& a, auto&) { return ops::neg(a); }, true},
      {"greater", [](auto& a, auto& b) { return ops::greater(a, b); }, true},
      {"lower scalar", [](auto& a, auto&) { return ops::lower_elem(a, 0.25); }, true},
      {"relu", [](auto& a, auto&) { return ops::relu(a); }, true},
      {"exp", [](auto& a, auto&) { return ops::exp(a); }, false},
      {"tanh", [](auto& a, auto&) { return ops::tanh(a); }, false},
      {"sqrt", [](auto& a, auto&) { return ops::sqrt(ops::abs(a)); }, false},
      {"gelu", [](auto& a, auto&) { return ops::gelu(a); }, false},
      {"sigmoid", [](auto& a, auto&) { return ops::sigmoid(a); }, false},
      {"softmax", [](auto& a, auto&) { return ops::softmax(a, 1); }, false},
      {"log_softmax dim 0", [](auto& a, auto&) { return ops::log_softmax(a, 0); }, false},
      {"sum dim 1", [](auto& a, auto&) { return ops::sum_dim(a, 1); }, false},
      {"mean dim 0", [](auto& a, auto&) { return ops::mean_dim(a, 0); }, false},
      {"sum", [](auto& a, auto&) { return ops::sum(a); }, false},
      {"max dim 1", [](auto& a, auto&) { return ops::max_dim(a, 1); }, true},
      {"max", [](auto& a, auto&) { return ops::max(a); }, true},
      {"argmax dim 1", [](auto& a, auto&) { return ops::argmax(a, 1); }, true},
      {"argmax dim 0", [](auto& a, auto&) { return ops::argmax(a, 0); }, true},
      {"max_pool2d", [](auto& a, auto&) { return narrow_pool_max(a); }, true},
      {"avg_pool2d", [](auto& a, auto&) { return narrow_pool_avg(a); }, false},
  };
}

/// Values of both signs spread over [-4, 4), distinct enough that argmax has few ties.
TensorData narrow_inputs(int seed, DType dtype, const Shape& shape) {
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] =
        static_cast<double>((i * 7919 + static_cast<std::size_t>(seed) * 104729) % 2003) / 250.0 -
        4.0 + 0.001 * static_cast<double>(seed);
  return TensorData(values, shape, dtype);
}

/// torch.testing's default rtol for dtype (its atol is 1e-5 for both).
double torch_rtol(DType dtype) {
  return dtype == DType::BF16 ? 1.6e-2 : 1e-3;
}

/// One row is two whole f32 chunks and a partial one.
const Shape kNarrowShape{3, 1000};

void check_narrow(const NarrowCase& c, const Device& device, DType dtype,
                  const Shape& shape = kNarrowShape) {
  std::ostringstream where;
  where << c.name << " " << dtype << " on " << device;
  const std::string what = where.str();
  const TensorData a = narrow_inputs(1, dtype, shape);
  const TensorData b = narrow_inputs(2, dtype, shape);
  const auto run = [&](const Device& on, DType as) {
    const TensorHandle x = ops::cast(ops::from_data(a, on, TensorKind::Float), as);
    const TensorHandle y = ops::cast(ops::from_data(b, on, TensorKind::Float), as);
    return ops::into_data(c.fn(x, y));
  };
  const TensorData actual = run(device, dtype);
  const bool is_float_result = actual.dtype() == dtype;
  const TensorData reference = run(Device::ndarray(), is_float_result ? DType::F32 : dtype);
  ASSERT_EQ(actual.shape(), reference.shape()) << what;
  const std::vector<double> got = actual.to_vector<double>();
  const std::vector<double> want = reference.to_vector<double>();
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_LE(std::abs(got[i] - want[i]), 1e-5 + torch_rtol(dtype) * std::abs(want[i]))
        << what << " at " << i << ": " << got[i] << " vs f32 " << want[i];
  }
  if (!c.exact) return;
  const TensorData same_dtype = run(Device::ndarray(), dtype);
  ASSERT_EQ(actual.dtype(), same_dtype.dtype()) << what;
  EXPECT_EQ(actual.to_vector<double>(), same_dtype.to_vector<double>()) << what;
}

/// flex, and cpu where it is built.
std::vector<Device> narrow_devices() {
  std::vector<Device> devices{Device::flex()};
  try {
    devices.push_back(Device::cpu());
  } catch (const ConfigError&) {
  }
  return devices;
}

class FlexNarrowFloat : public ::testing::TestWithParam<DType> {};

TEST_P(FlexNarrowFloat, EveryOpMatchesF32AndExactOpsMatchNdarrayBitForBit) {
  for (const Device& device : narrow_devices()) {
    for (const NarrowCase& c : narrow_cases())
      check_narrow(c, device, GetParam());
  }
}

TEST_P(FlexNarrowFloat, ReductionsOverSeveralSlabsMatchF32AndNdarray) {
  // 1.4M elements (widened.cpp): the last dim row by row (sum, max), and a middle dim (and
  // argmax's last) in two slabs of the first dim.
  const std::vector<NarrowCase> reductions = {
      {"sum dim 1", [](auto& a, auto&) { return ops::sum_dim(a, 1); }, false},
      {"max dim 1", [](auto& a, auto&) { return ops::max_dim(a, 1); }, true},
      {"argmax dim 1", [](auto& a, auto&) { return ops::argmax(a, 1); }, true},
      {"sum middle dim",
       [](auto& a, auto&) {
         return ops::sum_dim(ops::reshape(a, {700, 20, 100}), 1);
       },
       false},
      {"max middle dim",
       [](auto& a, auto&) {
         return ops::max_dim(ops::reshape(a, {700, 20, 100}), 1);
       },
       true},
  };
  for (const NarrowCase& c : reductions)
    check_narrow(c, Device::flex(), GetParam(), Shape{700, 2000});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FlexNarrowFloat, ::testing::Values(DType::BF16, DType::F16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

/// Special values pass through the chunked loops as through ndarray's: infinities, NaN, signed
/// zeros, f16 subnormals and overflow to infinity.
TEST(FlexNarrowFloatSpecial, SpecialValuesMatchNdarrayBitForBit) {
  const std::vector<double> values = {0.0,   -0.0,    1.0 / 0.0, -1.0 / 0.0, std::nan(""), 3e-6,
                                      -6e-8, 65504.0, 60000.0,   1e38,       -2.5e38,      0.5};
  for (const DType dtype : {DType::BF16, DType::F16}) {
    const auto run = [&](const Device& device) {
      const TensorHandle x =
          ops::from_data(TensorData(values, Shape{static_cast<int64_t>(values.size())}, dtype),
                         device, TensorKind::Float);
      return std::vector<TensorData>{ops::into_data(ops::add(x, x)),
                                     ops::into_data(ops::mul_scalar(x, 3.0)),
                                     ops::into_data(ops::relu(x)), ops::into_data(ops::neg(x))};
    };
    const std::vector<TensorData> got = run(Device::flex());
    const std::vector<TensorData> want = run(Device::ndarray());
    for (std::size_t k = 0; k < got.size(); ++k) {
      const std::vector<double> g = got[k].to_vector<double>();
      const std::vector<double> w = want[k].to_vector<double>();
      for (std::size_t i = 0; i < w.size(); ++i) {
        if (std::isnan(w[i])) {
          EXPECT_TRUE(std::isnan(g[i])) << k << " " << i;
        } else {
          EXPECT_EQ(std::signbit(g[i]), std::signbit(w[i])) << k << " " << i;
          EXPECT_EQ(g[i], w[i]) << k << " " << i;
        }
      }
    }
  }
}

/// Rows of n narrow values, row by row: ordinary values that round in bf16 and f16 (thirds), one
/// NaN, +inf, +inf and -inf, and values whose f32 blocks would overflow (f16: its largest).
TensorData narrow_sum_rows(int64_t n, DType dtype) {
  constexpr int64_t kRows = 5;
  std::vector<double> values(static_cast<std::size_t>(kRows * n));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<double>(static_cast<int64_t>(i * 37 % 101) - 50) / 3.0;
  const auto at = [&](int64_t row, int64_t k) -> double& {
    return values[static_cast<std::size_t>(row * n + k)];
  };
  at(1, n / 2) = std::nan("");
  at(2, n - 1) = 1.0 / 0.0;
  at(3, 0) = 1.0 / 0.0;
  at(3, n - 1) = -1.0 / 0.0;
  for (int64_t k = 0; k < n; ++k)
    at(4, k) = dtype == DType::F16 ? 65504.0 : 3e38;
  return TensorData(values, Shape{kRows, n}, dtype);
}

/// The sums along the last dim widen bf16 / f16 in registers (simd.h's narrow sums): every tail
/// length, NaN, infinities and overflowing f32 blocks, against ndarray in the same dtype (one
/// rounding of the exact sum: equal up to the last bit's tie), and bit for bit the sum of the
/// widened f32 copy (widening is exact, and the additions are the same).
TEST(FlexNarrowFloatSpecial, SumsAlongRowsOfEveryLengthMatchNdarrayAndTheWidenedSum) {
  for (const DType dtype : {DType::BF16, DType::F16}) {
    for (const int64_t n : {1, 7, 15, 16, 17, 127, 128, 129, 255, 1000, 4099}) {
      const TensorData x = narrow_sum_rows(n, dtype);
      const auto sums = [&](const Device& device, DType as) {
        const TensorHandle t = ops::cast(ops::from_data(x, device, TensorKind::Float), as);
        return ops::into_data(ops::sum_dim(t, 1)).to_vector<double>();
      };
      const std::vector<double> got = sums(Device::flex(), dtype);
      const std::vector<double> want = sums(Device::ndarray(), dtype);
      const std::vector<double> widened = sums(Device::flex(), DType::F32);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t r = 0; r < want.size(); ++r) {
        const std::string what = std::string(dtype_name(dtype)) + " n=" + std::to_string(n) +
                                 " row " + std::to_string(r);
        if (std::isnan(want[r])) {
          EXPECT_TRUE(std::isnan(got[r])) << what;
          EXPECT_TRUE(std::isnan(widened[r])) << what;
          continue;
        }
        if (std::isinf(want[r])) {
          EXPECT_EQ(got[r], want[r]) << what;
        } else {
          EXPECT_LE(std::abs(got[r] - want[r]), 1e-5 + torch_rtol(dtype) * std::abs(want[r]))
              << what << ": " << got[r] << " vs " << want[r];
        }
        // The f32 sum rounded to dtype: what the narrow sum computes before its one rounding.
        const double rounded =
            TensorData(std::vector<double>{widened[r]}, Shape{1}, dtype).to_vector<double>()[0];
        EXPECT_EQ(got[r], rounded) << what;
      }
    }
  }
}

/// x [rows, n] stored as its transpose [n, rows], in x's dtype.
TensorData columns_of(const TensorData& x) {
  const int64_t rows = x.shape()[0];
  const int64_t n = x.shape()[1];
  const std::vector<double> values = x.to_vector<double>();
  std::vector<double> columns(values.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < n; ++k)
      columns[static_cast<std::size_t>(k * rows + r)] = values[static_cast<std::size_t>(r * n + k)];
  return TensorData(columns, Shape{n, rows}, x.dtype());
}

/// Softmax and log-softmax along rows of bf16 / f16 widen one row at a time (activation.cpp): bit
/// for bit the f32 softmax of the widened tensor rounded once to the dtype (widening is exact,
/// and the f32 row is computed as the f32 kernel does), with every tail length, NaN, infinities
/// and rows of equal extreme values, and a transposed input copied into rows first. Their
/// tolerance against ndarray's f32 is EveryOpMatchesF32AndExactOpsMatchNdarrayBitForBit's.
TEST(FlexNarrowFloatSpecial, SoftmaxAlongRowsIsTheF32SoftmaxRoundedOnce) {
  for (const Device& device : narrow_devices()) {
    for (const DType dtype : {DType::BF16, DType::F16}) {
      for (const int64_t n : {1, 7, 17, 1000, 4099}) {
        const TensorData x = narrow_sum_rows(n, dtype);
        const TensorData x_columns = columns_of(x);
        for (const bool log : {false, true}) {
          for (const bool transposed : {false, true}) {
            const auto softmax = [&](DType as) {
              // transposed: x's values read through a transposed view of their columns.
              const TensorHandle stored =
                  ops::from_data(transposed ? x_columns : x, device, TensorKind::Float);
              const TensorHandle t = ops::cast(transposed ? ops::transpose(stored) : stored, as);
              const TensorHandle y = log ? ops::log_softmax(t, 1) : ops::softmax(t, 1);
              return ops::into_data(ops::cast(y, dtype)).to_vector<double>();
            };
            const std::vector<double> got = softmax(dtype);
            const std::vector<double> want = softmax(DType::F32);
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < want.size(); ++i) {
              const std::string what = std::string(dtype_name(dtype)) + " on " + device.name() +
                                       " n=" + std::to_string(n) + (log ? " log" : "") +
                                       (transposed ? " transposed" : "") + " at " +
                                       std::to_string(i);
              if (std::isnan(want[i]))
                EXPECT_TRUE(std::isnan(got[i])) << what;
              else
                EXPECT_EQ(got[i], want[i]) << what;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace ember::flex::test
