// Flex reductions against the ndarray reference: every reduced dim of shapes of rank 1 to 4
// (sizes off the vector widths, single rows and columns, reductions across rows cut into
// chunks), NaN and ties for argmax/argmin, permuted inputs, and the accuracy of long f32 sums
// against a double reference.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

using ir::ReduceOp;

const std::vector<ReduceOp> kCovered = {ReduceOp::Sum, ReduceOp::Mean,   ReduceOp::Max,
                                        ReduceOp::Min, ReduceOp::ArgMax, ReduceOp::ArgMin};

/// Random multiples of 1/64 in [-2, 2): sums of up to 2^17 of them are exact in f32, so any
/// summation order gives ndarray's result, and the few distinct values make ties common.
TensorData random_steps(const Shape& shape, DType dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (double& v : values)
    v = static_cast<double>(rng() % 256) / 64.0 - 2.0;
  return TensorData(values, shape, dtype);
}

std::string describe(ReduceOp op, const Shape& shape, DType dtype, int64_t dim) {
  std::string text = ir::name(ir::Reduce{op, dim}) + " " + std::string(dtype_name(dtype)) + " [";
  for (std::size_t d = 0; d < shape.rank(); ++d)
    text += (d ? "," : "") + std::to_string(shape[d]);
  return text + "] dim " + std::to_string(dim);
}

TEST(FlexReduce, EveryDimOfRandomTensorsOfRankOneToFourMatchesTheReference) {
  // Single rows and columns, sizes off every vector width, two column blocks of 1024 with a tail
  // of one, and reductions across rows with few columns (their rows cut into chunks: a column
  // block per outer index is fewer tasks than any pool wants).
  const std::vector<Shape> shapes = {{1},        {7},          {37},          {1000},
                                     {1, 9},     {9, 1},       {33, 17},      {130, 1025},
                                     {20000, 3}, {3000, 40},   {3, 5, 7},     {2, 300, 19},
                                     {4, 1, 6},  {2, 3, 5, 9}, {3, 1, 70, 4}, {2, 1100, 2, 17}};
  uint32_t seed = 1;
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const Shape& shape : shapes) {
      const TensorData x = random_steps(shape, dtype, seed++);
      for (const ReduceOp op : kCovered) {
        for (int64_t dim = 0; dim < static_cast<int64_t>(shape.rank()); ++dim)
          expect_backends_agree(ir::Reduce{op, dim}, {x}, describe(op, shape, dtype, dim));
        expect_backends_agree(ir::Reduce{op, std::nullopt}, {x}, describe(op, shape, dtype, -1));
      }
    }
  }
}

/// Columns of rows rows: 0 a tie of the maximum at rows 3 and rows - 2 (and of the minimum at
/// 5 and rows - 3), 1 NaN at rows / 2 and rows - 1, 2 NaN at row 1 and rows / 2, 3 constant,
/// 4 signed zeros only, 5 ascending. rows >= 6 (the ties' rows must exist).
TensorData ties_and_nans(int64_t rows, DType dtype) {
  constexpr int64_t kColumns = 6;
  std::vector<double> values(static_cast<std::size_t>(rows * kColumns));
  const auto at = [&](int64_t r, int64_t c) -> double& {
    return values[static_cast<std::size_t>(r * kColumns + c)];
  };
  for (int64_t r = 0; r < rows; ++r) {
    at(r, 0) = static_cast<double>(r % 7);
    at(r, 1) = static_cast<double>(r % 5) - 2.0;
    at(r, 2) = static_cast<double>(r % 3);
    at(r, 3) = 1.5;
    at(r, 4) = r % 2 ? 0.0 : -0.0;
    at(r, 5) = static_cast<double>(r);
  }
  at(3, 0) = at(rows - 2, 0) = 100.0;
  at(5, 0) = at(rows - 3, 0) = -100.0;
  at(rows / 2, 1) = at(rows - 1, 1) = kNaN;
  at(1, 2) = at(rows / 2, 2) = kNaN;
  return TensorData(values, {rows, kColumns}, dtype);
}

TEST(FlexReduce, ArgReductionsAcrossRowsKeepTheFirstTieAndTheFirstNaN) {
  // 9 rows: one task; 20000 rows: chunks, with ties and NaNs in different chunks.
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const int64_t rows : {int64_t{9}, int64_t{20000}}) {
      const TensorData x = ties_and_nans(rows, dtype);
      for (const ReduceOp op : kCovered)
        expect_backends_agree(ir::Reduce{op, 0}, {x}, describe(op, x.shape(), dtype, 0));
      // Along the columns too (contiguous rows), with a narrower index dtype.
      expect_backends_agree(ir::Reduce{ReduceOp::ArgMax, 1, 0, DType::I32}, {x}, "argmax i32");
      expect_backends_agree(ir::Reduce{ReduceOp::ArgMin, 0, 0, DType::I16}, {x}, "argmin i16");
    }
  }
  // The expected positions, independently of ndarray: first tie, first NaN.
  FlexBackend flex;
  const TensorData positions =
      run_on(flex, ir::Reduce{ReduceOp::ArgMax, 0}, {ties_and_nans(20000, DType::F32)})[0];
  EXPECT_EQ(positions.to_vector<int64_t>(), (std::vector<int64_t>{3, 10000, 1, 0, 0, 19999}));
}

/// ties_and_nans's six columns repeated across columns columns, with a NaN in row 0 of every
/// seventh column (the first pass of an arg-reduction starts from row 0): every case in every
/// vector lane of the reductions across rows. Fewer than 9 rows take the first rows of 9.
TensorData wide_ties_and_nans(int64_t rows, int64_t columns, DType dtype) {
  const std::vector<double> narrow =
      ties_and_nans(std::max<int64_t>(rows, 9), DType::F64).to_vector<double>();
  std::vector<double> values(static_cast<std::size_t>(rows * columns));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < columns; ++c)
      values[static_cast<std::size_t>(r * columns + c)] =
          narrow[static_cast<std::size_t>(r * 6 + c % 6)];
  }
  for (int64_t c = 0; c < columns; c += 7)
    values[static_cast<std::size_t>(c)] = kNaN;
  return TensorData(values, {rows, columns}, dtype);
}

TEST(FlexReduce, ReductionsAcrossRowsOfSeveralColumnBlocksMatchTheReference) {
  // 2 * 4096 + 37 columns: two whole column blocks of reduce.cpp and a tail off the vector widths.
  // 3 rows: one pass of the row fold; 9: a second pass; 300: rows cut into chunks (three blocks
  // are fewer tasks than the pool wants), combined in order.
  constexpr int64_t kColumns = 2 * 4096 + 37;
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const int64_t rows : {int64_t{3}, int64_t{9}, int64_t{300}}) {
      const TensorData x = wide_ties_and_nans(rows, kColumns, dtype);
      for (const ReduceOp op : kCovered)
        expect_backends_agree(ir::Reduce{op, 0}, {x}, describe(op, x.shape(), dtype, 0));
    }
    // Along a middle dim, and a transposed (strided) view of the same values.
    const TensorData x = wide_ties_and_nans(18, kColumns, dtype);
    const TensorData middle(x.to_vector<double>(), {2, 9, kColumns}, dtype);
    for (const ReduceOp op : kCovered)
      expect_backends_agree(ir::Reduce{op, 1}, {middle}, describe(op, middle.shape(), dtype, 1));
    const TensorData transposed_data(
        ops::into_data(ops::transpose(ops::from_data(x, Device::ndarray(), TensorKind::Float))));
    const auto transposed = [&](const Device& device) {
      return ops::transpose(ops::from_data(transposed_data, device, TensorKind::Float));
    };
    const std::string what = std::string(dtype_name(dtype)) + " transposed, dim 0";
    expect_matches_ndarray([&](const Device& d) { return ops::sum_dim(transposed(d), 0); },
                           "sum " + what);
    expect_matches_ndarray([&](const Device& d) { return ops::argmax(transposed(d), 0); },
                           "argmax " + what);
    expect_matches_ndarray([&](const Device& d) { return ops::min_dim(transposed(d), 0); },
                           "min " + what);
  }
}

/// Rows of n >= 3 values (n off the vector widths) whose extremes sit where a one-pass index scan
/// can go wrong: row by row, ties of the extreme in the first and the last lane, the extreme in the
/// tail after the last whole vector, -0 before +0, a NaN late and a NaN first, all -inf, and
/// infinities of both signs.
TensorData extremes_in_rows(int64_t n, DType dtype) {
  constexpr int64_t kRows = 8;
  std::vector<double> values(static_cast<std::size_t>(kRows * n));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = std::cos(static_cast<double>(i) * 0.61);
  const auto at = [&](int64_t row, int64_t k) -> double& {
    return values[static_cast<std::size_t>(row * n + k)];
  };
  at(0, n / 2) = at(0, n - 1) = at(0, n / 3) = 5.0;
  at(0, n / 4) = at(0, n - 2) = -5.0;
  at(1, n - 1) = 7.0;
  at(1, 0) = -7.0;
  for (int64_t k = 0; k < n; ++k)
    at(2, k) = (k % 2 == 0) ? -0.0 : 0.0;
  at(3, n - 1) = kNaN;
  at(4, 0) = at(4, n / 2) = kNaN;
  for (int64_t k = 0; k < n; ++k)
    at(5, k) = -std::numeric_limits<double>::infinity();
  at(6, n / 2) = std::numeric_limits<double>::infinity();
  at(7, n / 2) = -std::numeric_limits<double>::infinity();
  return TensorData(values, {kRows, n}, dtype);
}

TEST(FlexReduce, ExtremesAndVariancesAlongRowsMatchTheReferenceAtEveryPosition) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const int64_t n : {3, 4, 17, 31, 32, 33, 65, 100, 1001}) {
      const TensorData x = extremes_in_rows(n, dtype);
      for (const ReduceOp op :
           {ReduceOp::Max, ReduceOp::Min, ReduceOp::ArgMax, ReduceOp::ArgMin, ReduceOp::Var}) {
        expect_backends_agree(ir::Reduce{op, 1}, {x}, describe(op, x.shape(), dtype, 1));
        expect_backends_agree(ir::Reduce{op, 0}, {x}, describe(op, x.shape(), dtype, 0));
      }
      // The unbiased variance, and one with no degrees of freedom left (NaN).
      expect_backends_agree(ir::Reduce{ReduceOp::Var, 1, 1}, {x}, "var, correction 1");
      expect_backends_agree(ir::Reduce{ReduceOp::Var, 1, n}, {x}, "var, correction n");
    }
  }
  // Positions fixed by hand, independently of ndarray: ties, the tail, the first NaN; row 7's
  // largest cosine is at 21 (Python's max over the same f32 values).
  FlexBackend flex;
  const TensorData positions =
      run_on(flex, ir::Reduce{ReduceOp::ArgMax, 1}, {extremes_in_rows(100, DType::F32)})[0];
  EXPECT_EQ(positions.to_vector<int64_t>(), (std::vector<int64_t>{33, 99, 0, 99, 0, 0, 50, 21}));
}

TEST(FlexReduce, PermutedInputsMatchTheReference) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    const TensorData data = random_steps({6, 35, 40}, dtype, 7);
    for (int64_t dim = 0; dim < 3; ++dim) {
      const auto permuted = [&](const Device& device) {
        return ops::permute(ops::from_data(data, device, TensorKind::Float), {2, 0, 1});
      };
      const std::string what = std::string(dtype_name(dtype)) + " dim " + std::to_string(dim);
      expect_matches_ndarray([&](const Device& d) { return ops::sum_dim(permuted(d), dim); },
                             "sum " + what);
      expect_matches_ndarray([&](const Device& d) { return ops::max_dim(permuted(d), dim); },
                             "max " + what);
      expect_matches_ndarray([&](const Device& d) { return ops::argmin(permuted(d), dim); },
                             "argmin " + what);
    }
  }
}

TEST(FlexReduce, LongF32SumsStayWithinARelative1e5OfTheDoubleSum) {
  constexpr int64_t kCount = 1000000;
  const double expected = static_cast<double>(kCount) * static_cast<double>(0.1f);
  // The whole tensor, one contiguous lane, and two columns across rows (in chunks).
  const std::vector<std::pair<Shape, std::optional<int64_t>>> cases = {
      {{kCount}, std::nullopt}, {{kCount}, 0}, {{kCount, 2}, 0}};
  for (const auto& [shape, dim] : cases) {
    const TensorData x(std::vector<float>(static_cast<std::size_t>(shape.num_elements()), 0.1f),
                       shape);
    FlexBackend flex;
    for (const double sum :
         run_on(flex, ir::Reduce{ReduceOp::Sum, dim}, {x})[0].to_vector<double>())
      EXPECT_NEAR(sum, expected, 1e-5 * expected);
  }
}

TEST(FlexReduce, F32RowSumsStayWithinTheirStatedBoundOfTheExactSum) {
  constexpr int64_t kCount = 1000000;
  // Both signs and magnitudes from 2^-8 to 2^8, so that the sum cancels and rounds unevenly.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-8, 8);
  std::vector<float> values(static_cast<std::size_t>(kCount));
  for (float& v : values) {
    v = static_cast<float>(std::ldexp(mantissa(rng), exponent(rng)) * (rng() % 2 ? 1.0 : -1.0));
  }
  // The whole tensor (in parallel chunks), one row, four rows, and twenty rows (several read at
  // once, and a few more).
  const std::vector<std::pair<Shape, std::optional<int64_t>>> cases = {
      {{kCount}, std::nullopt}, {{kCount}, 0}, {{4, kCount / 4}, 1}, {{20, kCount / 20}, 1}};
  FlexBackend flex;
  for (const auto& [shape, dim] : cases) {
    const std::vector<double> sums =
        run_on(flex, ir::Reduce{ReduceOp::Sum, dim}, {TensorData(values, shape)})[0]
            .to_vector<double>();
    const auto size = static_cast<int64_t>(values.size() / sums.size());
    for (std::size_t r = 0; r < sums.size(); ++r) {
      long double exact = 0;
      long double magnitude = 0;
      for (int64_t k = 0; k < size; ++k) {
        const float v = values[r * static_cast<std::size_t>(size) + static_cast<std::size_t>(k)];
        exact += v;
        magnitude += std::fabs(v);
      }
      // simd::sum's bound, 3 * 2^-24 * sum|x| plus size * 2^-53 * sum|x| for the double
      // additions, and the rounding of the result to f32.
      const double bound =
          (3 * std::ldexp(1.0, -24) + static_cast<double>(size) * std::ldexp(1.0, -53)) *
              static_cast<double>(magnitude) +
          std::ldexp(std::fabs(static_cast<double>(exact)), -24);
      EXPECT_NEAR(sums[r], static_cast<double>(exact), bound)
          << "row " << r << " of " << sums.size();
    }
  }
}

TEST(FlexReduce, F32RowSumsThatOverflowF32BeforeCancellingMatchTheReference) {
  // Blocks of FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX overflow in f32 but sum to 0 in double, and a
  // mean of FLT_MAX values is FLT_MAX. Rows of 128 that overflow alternate with rows of ones, nine
  // rows in all, so that rows summed together mix both kinds.
  constexpr double kMax = std::numeric_limits<float>::max();
  std::vector<double> cancelling;
  for (int row = 0; row < 9; ++row) {
    for (int i = 0; i < 32; ++i) {
      if (row % 2) {
        cancelling.insert(cancelling.end(), {1.0, 1.0, 1.0, 1.0});
      } else {
        cancelling.insert(cancelling.end(), {kMax, kMax, -kMax, -kMax});
      }
    }
  }
  const TensorData x(cancelling, {9, 128}, DType::F32);
  const TensorData large(std::vector<double>(256, kMax), {2, 128}, DType::F32);
  for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean}) {
    const std::string what = ir::name(ir::Reduce{op, 1});
    expect_backends_agree(ir::Reduce{op, 1}, {x}, what + " of cancelling FLT_MAX");
    expect_backends_agree(ir::Reduce{op, std::nullopt}, {x}, what + " of the whole tensor");
    expect_backends_agree(ir::Reduce{op, 1}, {large}, what + " of FLT_MAX");
  }
}

TEST(FlexReduce, ArgReductionOfAnEmptyDimIsAnError) {
  const TensorData empty(std::vector<float>{}, {0, 3});
  FlexBackend flex;
  EXPECT_THROW(run_on(flex, ir::Reduce{ReduceOp::ArgMax, 0}, {empty}), Error);
  EXPECT_EQ(run_on(flex, ir::Reduce{ReduceOp::Sum, 0}, {empty})[0].to_vector<float>(),
            (std::vector<float>{0, 0, 0}));
}

}  // namespace
}  // namespace ember::flex::test
