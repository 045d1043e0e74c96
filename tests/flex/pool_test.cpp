// Pooling and scatter on flex against the ndarray kernels, value for value: a sweep of
// geometries (1 to 3 spatial dims, stride, padding, dilation, ceil_mode, count_include_pad,
// divisor_override, overlapping windows) over inputs with ties and NaNs, strided inputs, the
// gradients of max and average pooling, scatter with duplicate and out-of-range indices, and
// gather along every dim.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ember/autodiff.h"
#include "ember/error.h"
#include "ember/pooling.h"
#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

/// Host values of shape and dtype from a fixed seed: halves in [-2, 2] (so windows hold ties)
/// and, when nan_rate > 0, NaN with that probability.
TensorData random_data(const Shape& shape, DType dtype, double nan_rate, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-4, 4);
  std::bernoulli_distribution nan(nan_rate);
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (double& v : values)
    v = nan_rate > 0 && nan(rng) ? std::nan("") : value(rng) / 2.0;
  return TensorData(values, shape, dtype);
}

/// Expects the same dtype, shape and values (NaN where expected has NaN); reports the first
/// difference.
void expect_same(const TensorData& actual, const TensorData& expected, const std::string& what) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  const std::vector<double> a = actual.to_vector<double>();
  const std::vector<double> e = expected.to_vector<double>();
  for (std::size_t i = 0; i < e.size(); ++i) {
    const bool same = std::isnan(e[i]) ? std::isnan(a[i]) : a[i] == e[i];
    if (!same) {
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", expected " << e[i];
      return;
    }
  }
}

/// Runs op on flex and on ndarray and expects identical outputs.
void expect_identical(const ir::Op& op, const std::vector<TensorData>& inputs,
                      const std::string& what) {
  compare_backends(op, inputs, what, expect_same);
}

struct Geometry {
  int64_t kernel, stride, padding, dilation;
  bool ceil_mode;
};

ir::Pool pool_of(ir::PoolOp op, std::size_t spatial, const Geometry& g) {
  ir::Pool pool{op, std::vector<int64_t>(spatial, g.kernel),
                std::vector<int64_t>(spatial, g.stride), std::vector<int64_t>(spatial, g.padding),
                std::vector<int64_t>(spatial, g.dilation)};
  pool.ceil_mode = g.ceil_mode;
  return pool;
}

std::string tag(const Geometry& g, const Shape& x) {
  return std::to_string(x.rank() - 2) + "d k" + std::to_string(g.kernel) + " s" +
         std::to_string(g.stride) + " p" + std::to_string(g.padding) + " d" +
         std::to_string(g.dilation) + (g.ceil_mode ? " ceil" : "");
}

// Rows long enough for whole SIMD vectors of outputs (up to 16 lanes) and a rest, odd and
// even (k2 s2 windows then reach the row's last element).
const std::vector<Shape> kInputs = {{2, 3, 75}, {2, 3, 9, 45}, {2, 3, 4, 28}, {1, 2, 5, 4, 37}};
// Overlapping (stride < kernel), gapped (stride > kernel) and clipped (ceil_mode) windows.
const std::vector<Geometry> kGeometries = {
    {2, 2, 0, 1, false}, {3, 2, 1, 1, false}, {3, 2, 1, 1, true},  {2, 1, 0, 1, false},
    {4, 3, 2, 1, true},  {1, 2, 0, 1, false}, {3, 1, 1, 2, false}, {3, 3, 1, 2, true}};

TEST(FlexPool, MaxPoolingByHand) {
  // Windows [1, 3], [3, NaN] (NaN wins), [2, 2] (the first of the tie), [5] (the last alone).
  FlexBackend flex;
  const TensorData x(std::vector<float>{1, 3, 3, NAN, 2, 2, 5}, {1, 1, 7});
  const ir::Pool op = pool_of(ir::PoolOp::Max, 1, {2, 2, 0, 1, true});
  const std::vector<TensorData> out = run_on(flex, op, {x});
  const std::vector<float> values = out.at(0).to_vector<float>();
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[0], 3);
  EXPECT_TRUE(std::isnan(values[1]));
  EXPECT_EQ(values[2], 2);
  EXPECT_EQ(values[3], 5);
  EXPECT_EQ(out.at(1).to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 4, 6}));
}

TEST(FlexPool, MaxPoolingMatchesTheReferenceWithTiesAndNaNs) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const Shape& x : kInputs) {
      const TensorData data = random_data(x, dtype, 0.05);
      for (const Geometry& g : kGeometries) {
        ir::Pool op = pool_of(ir::PoolOp::Max, x.rank() - 2, g);
        const std::string what = "max " + tag(g, x) + " " + std::string(dtype_name(dtype));
        expect_identical(op, {data}, what);
        op.index_dtype = DType::I32;
        expect_identical(op, {data}, what + " i32 indices");
      }
    }
  }
}

TEST(FlexPool, AveragePoolingMatchesTheReference) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const Shape& x : kInputs) {
      const TensorData data = random_data(x, dtype, 0.0);
      for (const Geometry& g : kGeometries) {
        if (g.dilation != 1) continue;  // average pooling has no dilation
        for (const bool count_include_pad : {true, false}) {
          for (const std::optional<int64_t> divisor : {std::optional<int64_t>{}, {5}}) {
            ir::Pool op = pool_of(ir::PoolOp::Avg, x.rank() - 2, g);
            op.count_include_pad = count_include_pad;
            op.divisor_override = divisor;
            const std::string what = "avg " + tag(g, x) + (count_include_pad ? " pad" : "") +
                                     (divisor ? " /5 " : " ") + std::string(dtype_name(dtype));
            expect_identical(op, {data}, what);
            FlexBackend flex;
            const Shape out = run_on(flex, op, {data}).at(0).shape();
            expect_identical(ir::AvgPoolGrad{op, x}, {random_data(out, dtype, 0.0, 11)},
                             what + " grad");
          }
        }
      }
    }
  }
}

TEST(FlexPool, AdaptivePoolingMatchesTheReference) {
  const TensorData data = random_data({2, 3, 9, 7}, DType::F32, 0.05);
  const TensorData finite = random_data({2, 3, 9, 7}, DType::F32, 0.0);
  for (const std::vector<int64_t>& size : {std::vector<int64_t>{4, 3}, {9, 7}, {2, 5}}) {
    const std::string what = "adaptive " + std::to_string(size[0]) + "x" + std::to_string(size[1]);
    expect_identical(ir::AdaptivePool{ir::PoolOp::Max, size}, {data}, what + " max");
    expect_identical(ir::AdaptivePool{ir::PoolOp::Avg, size}, {finite}, what + " avg");
    expect_identical(ir::AdaptiveAvgPoolGrad{ir::AdaptivePool{ir::PoolOp::Avg, size}, data.shape()},
                     {random_data({2, 3, size[0], size[1]}, DType::F32, 0.0, 11)},
                     what + " avg grad");
  }
}

TEST(FlexPool, OtherDtypesFallBackToTheReference) {
  const ir::Pool op = pool_of(ir::PoolOp::Max, 2, {3, 2, 1, 1, false});
  expect_identical(op, {random_data({1, 2, 6, 6}, DType::F16, 0.05)}, "f16");
  expect_identical(op, {random_data({1, 2, 6, 6}, DType::I32, 0.0)}, "i32 values");
  ir::Pool narrow = op;
  narrow.index_dtype = DType::I16;
  expect_identical(narrow, {random_data({1, 2, 6, 6}, DType::F32, 0.05)}, "i16 indices");
}

TEST(FlexPool, PermutedInputsGiveTheReferenceResult) {
  const module::MaxPoolOptions max{.kernel_size = {3}, .stride = {2}, .padding = {1}};
  const module::AvgPoolOptions avg{.kernel_size = {2}, .count_include_pad = false};
  for (const bool indices : {false, true}) {
    expect_matches_ndarray(
        [&](const Device& d) {
          // [N, H, W, C] viewed as [N, C, H, W]: copied contiguous once.
          const TensorHandle x = ops::permute(varied({2, 7, 6, 3}, d), {0, 3, 1, 2});
          const auto [values, at] = ops::max_pool_with_indices(x, max);
          return indices ? at : values;
        },
        indices ? "max indices of a permuted x" : "max of a permuted x");
  }
  expect_matches_ndarray(
      [&](const Device& d) {
        return ops::avg_pool(ops::permute(varied({2, 7, 6, 3}, d), {0, 3, 1, 2}), avg);
      },
      "average of a permuted x");
}

/// The gradient of sum(pool(x) * weights) for x of shape on device.
TensorHandle pool_gradient(const Device& device, const Shape& shape,
                           const std::function<TensorHandle(const TensorHandle&)>& pool) {
  const TensorHandle x = ops::require_grad(varied(shape, device.autodiff()));
  const TensorHandle y = pool(x);
  const TensorHandle weights = varied(y.shape(), device.autodiff());
  return ops::backward(ops::mul(y, weights)).get(x).value();
}

TEST(FlexPool, GradientsMatchTheReference) {
  const module::MaxPoolOptions max2{.kernel_size = {2}};
  const module::MaxPoolOptions max3{.kernel_size = {3}, .stride = {2}, .padding = {1}};
  const module::AvgPoolOptions avg{.kernel_size = {3}, .stride = {2}, .padding = {1}};
  const Shape shape{2, 3, 8, 9};
  for (const auto& [what, pool] :
       std::vector<std::pair<std::string, std::function<TensorHandle(const TensorHandle&)>>>{
           {"max k2", [&](const TensorHandle& x) { return ops::max_pool(x, max2); }},
           {"max k3 s2 overlapping", [&](const TensorHandle& x) { return ops::max_pool(x, max3); }},
           {"avg k3 s2", [&](const TensorHandle& x) { return ops::avg_pool(x, avg); }}}) {
    expect_matches_ndarray([&](const Device& d) { return pool_gradient(d, shape, pool); },
                           what + " gradient");
  }
}

/// Indices in [0, size) of shape, of dtype, with many duplicates.
TensorData random_indices(const Shape& shape, int64_t size, DType dtype) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int64_t> index(0, size - 1);
  std::vector<int64_t> values(static_cast<std::size_t>(shape.num_elements()));
  for (int64_t& v : values)
    v = index(rng);
  return TensorData(values, shape, dtype);
}

TEST(FlexScatter, MatchesTheReferenceWithDuplicateIndices) {
  const Shape x{3, 5, 4};
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const DType index_dtype : {DType::I64, DType::I32}) {
      for (const ir::IndexUpdate update : {ir::IndexUpdate::Add, ir::IndexUpdate::Assign}) {
        for (const int64_t dim : {0, 1, 2}) {
          std::vector<int64_t> dims = x.dims();
          dims[static_cast<std::size_t>(dim)] = 7;  // more updates than slots
          const Shape indices(dims);
          const std::string what = "dim " + std::to_string(dim) + " " +
                                   std::string(dtype_name(dtype)) + " " +
                                   std::string(dtype_name(index_dtype)) +
                                   (update == ir::IndexUpdate::Add ? " add" : " assign");
          expect_identical(ir::Scatter{dim, update},
                           {random_data(x, dtype, 0.0),
                            random_indices(indices, x[static_cast<std::size_t>(dim)], index_dtype),
                            random_data(indices, dtype, 0.0, 5)},
                           what);
        }
      }
    }
  }
}

TEST(FlexScatter, SmallerIndicesFallBackToTheReference) {
  expect_identical(
      ir::Scatter{1},
      {random_data({3, 5, 4}, DType::F32, 0.0), random_indices({2, 6, 3}, 5, DType::I64),
       random_data({2, 6, 3}, DType::F32, 0.0, 5)},
      "indices [2, 6, 3] into x [3, 5, 4]");
}

/// Expects flex to raise ndarray's error for each index out of [0, 5) that run(device, bad) puts
/// among its indices.
void expect_the_reference_error(const std::function<TensorData(const Device&, int64_t)>& run) {
  for (const int64_t bad : {5, 9, -1}) {
    std::string expected;
    try {
      run(Device::ndarray(), bad);
    } catch (const Error& e) {
      expected = e.what();
    }
    ASSERT_FALSE(expected.empty()) << "ndarray accepted index " << bad;
    try {
      run(Device::flex(), bad);
      ADD_FAILURE() << "flex accepted index " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
}

/// Indices 0, 4, bad, 1 as a [1, 4] Int tensor.
TensorHandle indices_with(int64_t bad, const Device& d) {
  return ops::from_data(TensorData(std::vector<int64_t>{0, 4, bad, 1}, {1, 4}), d, TensorKind::Int);
}

TEST(FlexScatter, OutOfRangeIndicesRaiseTheReferenceError) {
  expect_the_reference_error([](const Device& d, int64_t bad) {
    return ops::into_data(
        ops::scatter(varied({1, 5}, d), 1, indices_with(bad, d), varied({1, 4}, d)));
  });
}

TEST(FlexGather, MatchesTheReferenceAlongEveryDim) {
  const Shape x{3, 5, 4};
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const DType index_dtype : {DType::I64, DType::I32}) {
      for (const int64_t dim : {0, 1, 2}) {
        for (const int64_t count : {1, 7}) {  // one pick per lane (cross_entropy's), and repeats
          std::vector<int64_t> dims = x.dims();
          dims[static_cast<std::size_t>(dim)] = count;
          const Shape indices(dims);
          expect_identical(ir::Gather{dim},
                           {random_data(x, dtype, 0.0),
                            random_indices(indices, x[static_cast<std::size_t>(dim)], index_dtype)},
                           "gather dim " + std::to_string(dim) + " of " + std::to_string(count) +
                               " " + std::string(dtype_name(dtype)) + " " +
                               std::string(dtype_name(index_dtype)));
        }
      }
    }
  }
  // Indices smaller than x off dim: ndarray's kernel.
  expect_identical(ir::Gather{1},
                   {random_data(x, DType::F32, 0.0), random_indices({2, 6, 3}, 5, DType::I64)},
                   "indices [2, 6, 3] from x [3, 5, 4]");
}

TEST(FlexGather, OutOfRangeIndicesRaiseTheReferenceError) {
  expect_the_reference_error([](const Device& d, int64_t bad) {
    return ops::into_data(ops::gather(varied({1, 5}, d), 1, indices_with(bad, d)));
  });
}

}  // namespace
}  // namespace ember::flex::test
