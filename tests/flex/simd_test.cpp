// The SIMD kernels against the ndarray reference: every covered unary op, binary op, comparison,
// activation, reduction and softmax, on lengths that exercise whole vectors and tails, on
// special values (NaN, infinities, signed zeros, the ends of each fast path's valid range), and
// on broadcast and strided operands.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/flex/simd.h"
#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

/// Values every kernel must get right: specials, range ends of the fast paths, and ordinary
/// values of both signs (the count is not a multiple of any vector length).
TensorData special_data(DType dtype) {
  std::vector<double> values = {kNaN, kInf,   -kInf, 0.0,    -0.0,  1e-40,  -1e-40, 1e-300,
                                88.5, -88.5,  100.0, -100.0, 710.0, -710.0, 4e4,    -4e4,
                                -1.0, -0.999, 1e13,  -1e13,  3.0,   -3.0,   20.0,   -20.0};
  for (int i = 0; i < 29; ++i)
    values.push_back(std::sin(i * 1.7) * 4.0);
  return TensorData(values, {static_cast<int64_t>(values.size())}, dtype);
}

/// Lengths around vector multiples, so every loop's tail is hit.
const std::vector<int64_t> kLengths = {1, 3, 7, 8, 15, 16, 17, 33, 70};

const std::vector<ir::UnaryOp> kUnaryOps = {
    ir::UnaryOp::Neg,   ir::UnaryOp::Abs,   ir::UnaryOp::Sign,  ir::UnaryOp::Sqrt,
    ir::UnaryOp::Recip, ir::UnaryOp::Floor, ir::UnaryOp::Ceil,  ir::UnaryOp::Round,
    ir::UnaryOp::Exp,   ir::UnaryOp::Log,   ir::UnaryOp::Log1p, ir::UnaryOp::Sin,
    ir::UnaryOp::Cos,   ir::UnaryOp::Tanh,  ir::UnaryOp::Tan,   ir::UnaryOp::Erf};

TEST(FlexSimd, UnaryOpsMatchTheReferenceOnSpecialValuesAndEveryLength) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const ir::UnaryOp op : kUnaryOps) {
      const std::string what = ir::name(ir::Unary{op}) + " " + std::string(dtype_name(dtype));
      expect_backends_agree(ir::Unary{op}, {special_data(dtype)}, what + " specials");
      for (const int64_t n : kLengths)
        expect_backends_agree(ir::Unary{op}, {varied_data({n}, dtype)}, what);
    }
  }
}

TEST(FlexSimd, ActivationsMatchTheReferenceOnSpecialValuesAndEveryLength) {
  std::vector<ir::Activation> activations;
  for (int op = 0; op <= static_cast<int>(ir::ActivationOp::HardSwish); ++op)
    activations.push_back({static_cast<ir::ActivationOp>(op), 0.3, 1.0});
  activations.push_back({ir::ActivationOp::Softplus, 0.0, 2.5});
  activations.push_back({ir::ActivationOp::Celu, 2.0, 1.0});
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const ir::Activation& op : activations) {
      const std::string what = ir::name(op) + " " + std::string(dtype_name(dtype));
      expect_backends_agree(op, {special_data(dtype)}, what + " specials");
      for (const int64_t n : kLengths)
        expect_backends_agree(op, {varied_data({n}, dtype)}, what);
    }
  }
}

TEST(FlexSimd, BinaryOpsAndComparisonsMatchTheReferenceWithBroadcasting) {
  const std::vector<ir::Op> ops = {
      ir::Binary{ir::BinaryOp::Add},       ir::Binary{ir::BinaryOp::Sub},
      ir::Binary{ir::BinaryOp::Mul},       ir::Binary{ir::BinaryOp::Div},
      ir::Binary{ir::BinaryOp::Maximum},   ir::Binary{ir::BinaryOp::Minimum},
      ir::Binary{ir::BinaryOp::Pow},       ir::Binary{ir::BinaryOp::Rem},
      ir::Compare{ir::CompareOp::Equal},   ir::Compare{ir::CompareOp::NotEqual},
      ir::Compare{ir::CompareOp::Greater}, ir::Compare{ir::CompareOp::GreaterEqual},
      ir::Compare{ir::CompareOp::Lower},   ir::Compare{ir::CompareOp::LowerEqual}};
  for (const DType dtype : {DType::F32, DType::F64}) {
    const TensorData specials = special_data(dtype);
    const auto n = specials.shape()[0];
    for (const ir::Op& op : ops) {
      const std::string what = ir::name(op) + " " + std::string(dtype_name(dtype));
      // Every pair of specials: a column against a row.
      expect_backends_agree(op,
                            {TensorData(specials.to_vector<double>(), {n, 1}, dtype),
                             TensorData(specials.to_vector<double>(), {1, n}, dtype)},
                            what + " all pairs");
      expect_backends_agree(op, {varied_data({3, 17}, dtype), varied_data({17}, dtype)},
                            what + " row broadcast");
      expect_backends_agree(op, {varied_data({1}, dtype), varied_data({2, 9}, dtype)},
                            what + " scalar lhs");
    }
  }
}

TEST(FlexSimd, ScalarOperandsMatchTheReference) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const bool scalar_lhs : {false, true}) {
      for (const auto op : {ir::BinaryOp::Sub, ir::BinaryOp::Div, ir::BinaryOp::Maximum}) {
        expect_backends_agree(ir::BinaryScalar{op, Scalar(0.1), scalar_lhs}, {special_data(dtype)},
                              "binary scalar");
      }
    }
    for (const auto op : {ir::CompareOp::Equal, ir::CompareOp::NotEqual, ir::CompareOp::Lower}) {
      // A float tensor compares with the scalar rounded to its dtype: f32 0.1 equals 0.1.
      expect_backends_agree(ir::CompareScalar{op, Scalar(0.1)},
                            {TensorData(std::vector<double>{0.1, 0.2, kNaN}, {3}, dtype)},
                            "compare scalar");
    }
  }
}

TEST(FlexSimd, StridedAndBroadcastOperandsMatchTheReference) {
  expect_matches_ndarray(
      [](const Device& d) {
        return ops::sub(ops::transpose(varied({6, 5}, d)), ops::flip(varied({5, 6}, d), {1}));
      },
      "transposed - flipped");
  expect_matches_ndarray(
      [](const Device& d) {
        return ops::exp(ops::slice(varied({8, 9}, d, DType::F64), {Slice(0, 8, 3), Slice()}));
      },
      "exp of a stepped slice");
  expect_matches_ndarray(
      [](const Device& d) {
        return ops::tanh(ops::expand(varied({4, 1}, d), {4, 33}));
      },
      "tanh of an expanded column");
  expect_matches_ndarray(
      [](const Device& d) {
        return ops::greater(varied({2, 3, 40}, d), ops::expand(varied({1, 3, 1}, d), {2, 3, 40}));
      },
      "greater than expanded");
}

TEST(FlexSimd, ReductionsMatchTheReferenceAlongEveryDim) {
  const std::vector<ir::ReduceOp> covered = {
      ir::ReduceOp::Sum,    ir::ReduceOp::Mean,   ir::ReduceOp::Max, ir::ReduceOp::Min,
      ir::ReduceOp::ArgMax, ir::ReduceOp::ArgMin, ir::ReduceOp::Var};
  // [3, 5, 2100]: the last dim spans two column blocks of a reduction across rows.
  const std::vector<Shape> shapes = {{3, 5, 7}, {3, 5, 2100}, {1, 70000}};
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const ir::ReduceOp op : covered) {
      for (const Shape& shape : shapes) {
        const TensorData x = varied_data(shape, dtype);
        const std::string what = ir::name(ir::Reduce{op, 0}) + " " + std::string(dtype_name(dtype));
        expect_backends_agree(ir::Reduce{op, std::nullopt}, {x}, what + " whole");
        for (int64_t dim = 0; dim < static_cast<int64_t>(shape.rank()); ++dim)
          expect_backends_agree(ir::Reduce{op, dim}, {x}, what + " dim " + std::to_string(dim));
      }
      const TensorData specials = special_data(dtype);
      expect_backends_agree(ir::Reduce{op, 0}, {specials}, "specials (NaN wins)");
      // Each special in a row of three: reduced across rows, column by column.
      std::vector<double> rows;
      for (const double v : specials.to_vector<double>())
        rows.insert(rows.end(), {v, -v, 1.0});
      expect_backends_agree(ir::Reduce{op, 0}, {TensorData(rows, {specials.shape()[0], 3}, dtype)},
                            "specials across rows");
    }
  }
  // Ties: the first extreme wins; argmin with the index dtype asked for.
  const TensorData ties(std::vector<float>{2, 1, 3, 1, 3}, {5});
  expect_backends_agree(ir::Reduce{ir::ReduceOp::ArgMax, 0}, {ties}, "argmax ties");
  expect_backends_agree(ir::Reduce{ir::ReduceOp::ArgMin, 0, 0, DType::I32}, {ties},
                        "argmin ties, i32");
}

/// 21 rows (passes of 8, 8 and 5 rows) of 37 columns for max and min across rows, column j a
/// case: signed zeros tied (the earlier stays), a NaN in a later pass, infinities, values whose
/// sum overflows f32 (the fast fold's check), and ordinary values.
TEST(FlexSimd, ExtremesAcrossRowsKeepTheReferencesTiesNaNAndInfinities) {
  constexpr int64_t kRows = 21;
  constexpr int64_t kColumns = 37;
  std::vector<double> values(kRows * kColumns);
  for (int64_t k = 0; k < kRows; ++k) {
    for (int64_t j = 0; j < kColumns; ++j) {
      double& v = values[static_cast<std::size_t>(k * kColumns + j)];
      v = std::sin(static_cast<double>(k * 7 + j)) * 10.0;
      if (j == 1) v = k % 2 == 0 ? -0.0 : 0.0;
      if (j == 2) v = k % 2 == 0 ? 0.0 : -0.0;
      if (j == 3 && k == 17) v = kNaN;
      if (j == 4 && k == 9) v = kInf;
      if (j == 5 && k == 2) v = -kInf;
      if (j == 6) v = k == 12 ? 3.3e38 : 3e38;
      if (j == 20 && k == 3) v = kNaN;
    }
  }
  for (const DType dtype : {DType::F32, DType::F64}) {
    const TensorData x(values, {kRows, kColumns}, dtype);
    for (const ir::ReduceOp op : {ir::ReduceOp::Max, ir::ReduceOp::Min}) {
      FlexBackend flex;
      ndarray::NdArrayBackend reference;
      const std::vector<double> got =
          run_on(flex, ir::Reduce{op, 0}, {x}).at(0).to_vector<double>();
      const std::vector<double> want =
          run_on(reference, ir::Reduce{op, 0}, {x}).at(0).to_vector<double>();
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t j = 0; j < want.size(); ++j) {
        const std::string what = ir::name(ir::Reduce{op, 0}) + " " +
                                 std::string(dtype_name(dtype)) + " column " + std::to_string(j);
        if (std::isnan(want[j])) {
          EXPECT_TRUE(std::isnan(got[j])) << what;
          continue;
        }
        EXPECT_EQ(got[j], want[j]) << what;
        EXPECT_EQ(std::signbit(got[j]), std::signbit(want[j])) << what;
      }
    }
  }
}

TEST(FlexSimd, SoftmaxMatchesTheReferenceAlongEveryDim) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    const TensorData x = varied_data({3, 4, 19}, dtype);
    for (const bool log : {false, true}) {
      for (int64_t dim = 0; dim < 3; ++dim)
        expect_backends_agree(ir::Softmax{dim, log}, {x}, "softmax dim " + std::to_string(dim));
      // Large and infinite logits: max subtraction keeps exp in range.
      expect_backends_agree(
          ir::Softmax{1, log},
          {TensorData(std::vector<double>{1000, 999, -kInf, 0, 5, -5, kNaN, 1}, {2, 4}, dtype)},
          "softmax extremes");
    }
  }
}

/// Rows of n values of both signs with, row by row: nothing special, -inf entries, all -inf,
/// a NaN, +inf, and one value far above the rest.
TensorData softmax_rows(int64_t n, DType dtype) {
  constexpr int64_t kRows = 6;
  std::vector<double> values(static_cast<std::size_t>(kRows * n));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin(static_cast<double>(i) * 0.37) * 6.0;
  const auto at = [&](int64_t row, int64_t k) -> double& {
    return values[static_cast<std::size_t>(row * n + k)];
  };
  for (int64_t k = 0; k < n; k += 3)
    at(1, k) = -kInf;
  for (int64_t k = 0; k < n; ++k)
    at(2, k) = -kInf;
  at(3, n / 2) = kNaN;
  at(4, n - 1) = kInf;
  at(5, n / 3) = 1e4;
  return TensorData(values, {kRows, n}, dtype);
}

TEST(FlexSimd, SoftmaxOfRowsOffTheVectorWidthsWithInfinitiesAndNaNMatchesTheReference) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    // 8211: across rows, two blocks of activation.cpp's 4096 columns and a tail of 19.
    for (const int64_t n : {1, 2, 15, 17, 31, 33, 64, 1001, 8211}) {
      const TensorData x = softmax_rows(n, dtype);
      for (const bool log : {false, true}) {
        const std::string what = std::string(log ? "log_" : "") + "softmax of " +
                                 std::to_string(n) + " " + std::string(dtype_name(dtype));
        expect_backends_agree(ir::Softmax{1, log}, {x}, what + " along rows");
        expect_backends_agree(ir::Softmax{0, log}, {x}, what + " across rows");
      }
    }
  }
  // Empty dims: nothing to compute, the reference's empty result.
  for (const Shape& shape : {Shape{0, 5}, Shape{3, 0}})
    expect_backends_agree(ir::Softmax{1, false}, {varied_data(shape)}, "softmax of nothing");
}

TEST(FlexSimd, SoftmaxAcrossRowsOfSeveralOuterIndicesAndBlocksMatchesTheReference) {
  // Along dim 1 of [3, 700, 401] activation.cpp cuts each outer index's 401 columns into a block
  // of 320 and one of 81 (the columns of 700 rows that fit kColumnBlockBytes), and each block
  // fetches the next one, across the outer indices too; the sums' logarithms are taken a vector at
  // a time, odd columns after them.
  const TensorData x = varied_data({3, 700, 401});
  for (const bool log : {false, true}) {
    expect_backends_agree(ir::Softmax{1, log}, {x},
                          log ? "log_softmax along dim 1" : "softmax along dim 1");
  }
}

/// The gradient of a softmax across rows (activation.cpp's blocks of columns) against ndarray's,
/// f32 and f64: along dim 0 of [70, 1500] (blocks of 928 and 572 columns, the columns' sums over
/// three blocks of up to 32 rows, a tail after the last whole vector) and dim 1 of [3, 45, 1301]
/// (three outer indices), with a NaN and an infinity in the upstream gradient (their columns NaN
/// or infinite, as the reference's). Log-softmax's keeps the composite there (runs_fused_rows).
TEST(FlexSimd, SoftmaxGradientAcrossRowsMatchesTheReference) {
  ndarray::NdArrayBackend reference;
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const auto& [shape, dim] :
         {std::pair{Shape{70, 1500}, int64_t{0}}, std::pair{Shape{3, 45, 1301}, int64_t{1}}}) {
      const ir::Softmax softmax{dim, false};
      const TensorData y = run_on(reference, softmax, {varied_data(shape, dtype)})[0];
      std::vector<double> upstream = positive_data(shape, dtype).to_vector<double>();
      upstream[7] = kNaN;
      upstream[upstream.size() - 3] = kInf;
      expect_backends_agree(ir::SoftmaxGrad{softmax}, {y, TensorData(upstream, shape, dtype)},
                            "softmax gradient along dim " + std::to_string(dim) + " " +
                                std::string(dtype_name(dtype)));
    }
  }
  FlexBackend flex;
  const std::vector<ir::TensorMeta> metas{{Shape{70, 1500}, DType::F32},
                                          {Shape{70, 1500}, DType::F32}};
  EXPECT_TRUE(flex.runs_fused_rows(ir::SoftmaxGrad{ir::Softmax{0, false}}, metas));
  EXPECT_FALSE(flex.runs_fused_rows(ir::SoftmaxGrad{ir::Softmax{0, true}}, metas));
  EXPECT_TRUE(flex.runs_fused_rows(ir::SoftmaxGrad{ir::Softmax{1, true}}, metas));
}

/// rows x n values whose column maxima rise down the rows, far apart (a sum taken before the
/// maximum rose and not rescaled would be off by e^60), with special columns: all -inf, -inf in
/// the first group of 8 rows only, +inf in the last row, a NaN in the middle row.
TensorData rising_columns(int64_t rows, int64_t n) {
  std::vector<double> values(static_cast<std::size_t>(rows * n));
  const auto at = [&](int64_t k, int64_t j) -> double& {
    return values[static_cast<std::size_t>(k * n + j)];
  };
  for (int64_t k = 0; k < rows; ++k) {
    for (int64_t j = 0; j < n; ++j)
      at(k, j) = static_cast<double>(k * (j % 5)) * 60.0 / static_cast<double>(rows) +
                 std::sin(static_cast<double>(k * n + j));
  }
  for (int64_t k = 0; k < rows; ++k)
    at(k, n / 4) = -kInf;
  for (int64_t k = 0; k < std::min<int64_t>(8, rows); ++k)
    at(k, n / 3) = -kInf;
  at(rows - 1, n / 2) = kInf;
  at(rows / 2, n - 2) = kNaN;
  return TensorData(values, {rows, n}, DType::F32);
}

TEST(FlexSimd, SoftmaxAcrossRowsWithRisingMaximaSpecialsAndOddSizesMatchesTheReference) {
  // Online maxima and sums (simd_reduce.cpp): a single row, fewer rows than a group, a partial
  // last group, columns off the vector widths; then a strided (transposed) input.
  for (const int64_t rows : {1, 5, 8, 37}) {
    for (const int64_t n : {7, 50, 67}) {
      const TensorData x = rising_columns(rows, n);
      for (const bool log : {false, true}) {
        expect_backends_agree(ir::Softmax{0, log}, {x},
                              std::string(log ? "log_" : "") + "softmax across " +
                                  std::to_string(rows) + " rows of " + std::to_string(n));
      }
    }
  }
  for (const bool log : {false, true}) {
    expect_matches_ndarray(
        [&](const Device& device) {
          const TensorHandle x = ops::from_data(rising_columns(37, 67), device, TensorKind::Float);
          const TensorHandle t = ops::transpose(x);
          return log ? ops::log_softmax(t, 0) : ops::softmax(t, 0);
        },
        log ? "log_softmax of a transposed input" : "softmax of a transposed input");
  }
}

TEST(FlexSimd, SoftmaxExponentialsRowsLieAnOddNumberOfCacheLinesApart) {
  // Rows an even number of 64-byte lines apart share cache sets (a power of two apart, all of
  // them): the stride holds the row, in whole lines, and an odd number of them.
  const auto check = [](auto element, int64_t n) {
    using T = decltype(element);
    const int64_t stride = simd::softmax_exponentials_stride<T>(n);
    const auto bytes = stride * static_cast<int64_t>(sizeof(T));
    EXPECT_GE(stride, n) << n;
    EXPECT_LT(stride, n + 2 * 64 / static_cast<int64_t>(sizeof(T))) << n;
    EXPECT_EQ(bytes % 64, 0) << n;
    EXPECT_EQ(bytes / 64 % 2, 1) << n;
  };
  for (const int64_t n : {1, 15, 16, 17, 112, 128, 1000, 1024, 4096}) {
    check(float{}, n);
    check(double{}, n);
  }
  EXPECT_EQ(simd::softmax_exponentials_stride<float>(112), 112);    // 7 lines: as it is
  EXPECT_EQ(simd::softmax_exponentials_stride<float>(1024), 1040);  // 64 lines: one more
}

TEST(FlexSimd, SoftmaxAcrossManyRowsKeepsItsSumsWithinF32Tolerance) {
  // 60000 rows of 16 columns in [-1, 0]: each column's sum of exponentials (about 38000) is 7500
  // online f32 additions of groups of 8 rows (simd_reduce.cpp), whose rounding compensated
  // summation keeps near f32's rounding of the result.
  constexpr int64_t kRows = 60000;
  constexpr int64_t kColumns = 16;
  std::vector<double> values(kRows * kColumns);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = -0.5 - 0.5 * std::sin(static_cast<double>(i) * 0.61);
  const TensorData x(values, {kRows, kColumns}, DType::F32);
  for (const bool log : {false, true})
    expect_backends_agree(ir::Softmax{0, log}, {x}, log ? "log_softmax" : "softmax");
  // log_softmax's error is its log-sum's, the sum's relative error: against the exact values (in
  // double, from the f32 inputs), f32's rounding of results near -10.5 (ulp 9.5e-7) and little
  // more: 9.8e-7 compensated, 2.2e-6 without the compensation. (ndarray's own f32 chain of 60000
  // additions is off by about 2e-5 here, so it cannot be the reference for this.)
  FlexBackend flex;
  const std::vector<double> got = run_on(flex, ir::Softmax{0, true}, {x}).at(0).to_vector<double>();
  const std::vector<double> inputs = x.to_vector<double>();
  double worst = 0.0;
  for (int64_t j = 0; j < kColumns; ++j) {
    const auto at = [&](int64_t k) { return static_cast<std::size_t>(k * kColumns + j); };
    double max = inputs[at(0)];
    for (int64_t k = 1; k < kRows; ++k)
      max = std::max(max, inputs[at(k)]);
    double sum = 0.0;
    for (int64_t k = 0; k < kRows; ++k)
      sum += std::exp(inputs[at(k)] - max);
    for (int64_t k = 0; k < kRows; ++k)
      worst = std::max(worst, std::abs(got[at(k)] - (inputs[at(k)] - max - std::log(sum))));
  }
  EXPECT_LT(worst, 1.5e-6);
}

TEST(FlexSimd, CrossEntropyOfRowsWithFarAndInfiniteLogitsMatchesTheReference) {
  // softmax_rows's rows: the log-sum-exp's sum takes exponentials below 2^-125 as about 2^-125
  // rather than 0 (logits far below the row's maximum, -inf), which a sum of at least 1 must not
  // show; all -inf, NaN and +inf rows go through the standard library.
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const int64_t n : {1, 15, 17, 1001}) {
      const TensorData x = softmax_rows(n, dtype);
      std::vector<int64_t> targets;
      for (int64_t r = 0; r < x.shape()[0]; ++r)
        targets.push_back(r * 7 % n);
      const TensorData t(targets, {x.shape()[0]});
      expect_backends_agree(
          ir::CrossEntropy{}, {x, t},
          "cross_entropy of " + std::to_string(n) + " " + std::string(dtype_name(dtype)));
    }
  }
}

TEST(FlexSimd, ExponentialsMatchTheReferenceOnEveryVectorTarget) {
  // The exponential of softmax and cross_entropy is a table and a cubic on vectors of 8 lanes or
  // more and Highway's polynomial on narrower ones: every target this CPU runs, on
  // softmax_rows's special values, along rows, across them, and in cross_entropy.
  const TensorData x = softmax_rows(37, DType::F32);
  std::vector<int64_t> targets;
  for (int64_t r = 0; r < x.shape()[0]; ++r)
    targets.push_back(r * 5 % 37);
  const TensorData t(targets, {x.shape()[0]});
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (const bool log : {false, true}) {
      expect_backends_agree(ir::Softmax{1, log}, {x}, log ? "log_softmax rows" : "softmax rows");
      expect_backends_agree(ir::Softmax{0, log}, {x},
                            log ? "log_softmax columns" : "softmax columns");
    }
    expect_backends_agree(ir::CrossEntropy{}, {x, t}, "cross_entropy");
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
}

TEST(FlexSimd, SoftmaxsExponentialIsWithinAnUlpAndAQuarterOfExpOnEveryVectorTarget) {
  // scaled_exp_row(x, 0, 1, null, 0) is softmax's exponential itself, element by element: over
  // [-86.6, 0] (below, results under 2^-125 are flushed), against exp in double, in units of the
  // f32 result's last place. The table and cubic of 8-lane and wider vectors come within 1.15 ulp
  // (mean 0.34), the degree-7 polynomial of narrower ones within 1.22 (mean 0.35); an exponential
  // off by its table's index or its power of two is off by 9% or more.
  constexpr int64_t kCount = 200001;
  std::vector<float> x(kCount);
  for (int64_t i = 0; i < kCount; ++i)
    x[static_cast<std::size_t>(i)] =
        static_cast<float>(-86.6 * static_cast<double>(i) / (kCount - 1));
  std::vector<float> out(x.size());
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    simd::scaled_exp_row(x.data(), 0.0f, 1.0f, nullptr, 0.0f, out.data(), kCount, false);
    double worst = 0.0;
    double total = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double exact = std::exp(static_cast<double>(x[i]));
      const auto rounded = static_cast<float>(exact);
      const double ulp = static_cast<double>(
          std::nextafter(rounded, std::numeric_limits<float>::infinity()) - rounded);
      const double error = std::abs(static_cast<double>(out[i]) - exact) / ulp;
      worst = std::max(worst, error);
      total += error;
    }
    EXPECT_LT(worst, 1.25);
    EXPECT_LT(total / static_cast<double>(x.size()), 0.36);
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
}

TEST(FlexSimd, SoftmaxLargerThanTheCachesStreamsItsResultAndMatchesTheReference) {
  // 2 x 4.2M f32 values: more than kStreamingBytes, so the rows go through scratch and
  // streaming stores; rows of 1025 start off the vector alignment. Across the 4097 rows, blocks
  // of 48 columns and a last one of 17.
  const TensorData x = varied_data({4097, 1025});
  for (const bool log : {false, true}) {
    for (const int64_t dim : {0, 1}) {
      expect_backends_agree(ir::Softmax{dim, log}, {x},
                            std::string(log ? "streamed log_softmax" : "streamed softmax") +
                                " dim " + std::to_string(dim));
    }
  }
}

TEST(FlexSimd, RandomOpsGiveTheSameNumbersOnEveryDevice) {
  for (const Device& device : {Device::flex(), Device::ndarray()})
    device.seed(42);
  const auto draw = [](const Device& d) {
    return ops::random({5, 7}, Distribution::Default, d, TensorKind::Float);
  };
  EXPECT_EQ(ops::into_data(draw(Device::flex())), ops::into_data(draw(Device::ndarray())));
}

}  // namespace
}  // namespace ember::flex::test
