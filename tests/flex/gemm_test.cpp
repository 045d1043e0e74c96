// Matmul through BLAS: the layouts BLAS reads without a copy, and products of every operand
// layout and batch form against a naive triple loop written here; bf16 and f16 products large
// enough to be cut into tiles (oneDNN's native path where the CPU has it) at PyTorch's
// tolerances for those dtypes.
#include <gtest/gtest.h>

#include <vector>

#include "backends/flex/blas.h"
#include "backends/flex/dnnl_conv.h"
#include "backends/flex/dnnl_matmul.h"
#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

TEST(FlexBlasLayout, RowMajorAndTransposedMatricesNeedNoCopy) {
  const auto row_major = blas_layout<float>(3, 4, 4, 1);
  ASSERT_TRUE(row_major);
  EXPECT_FALSE(row_major->transposed);
  EXPECT_EQ(row_major->ld, 4);
  const auto wide_rows = blas_layout<float>(3, 4, 10, 1);  // rows of a wider matrix
  ASSERT_TRUE(wide_rows);
  EXPECT_EQ(wide_rows->ld, 10);
  const auto transposed = blas_layout<double>(3, 4, 1, 3);  // a transposed [4, 3]
  ASSERT_TRUE(transposed);
  EXPECT_TRUE(transposed->transposed);
  EXPECT_EQ(transposed->ld, 3);
  const auto one_row = blas_layout<float>(1, 4, 999, 1);  // a size-1 dim's stride is moot
  ASSERT_TRUE(one_row);
  EXPECT_EQ(one_row->ld, 4);
  const auto one_column = blas_layout<float>(3, 1, 1, 7);
  ASSERT_TRUE(one_column);
  EXPECT_FALSE(one_column->transposed);
}

TEST(FlexBlasLayout, LayoutsBlasCannotReadAreRefused) {
  EXPECT_FALSE(blas_layout<float>(3, 4, 8, 2));   // every other column
  EXPECT_FALSE(blas_layout<float>(3, 4, 0, 1));   // expanded rows
  EXPECT_FALSE(blas_layout<float>(3, 4, -4, 1));  // flipped rows
  EXPECT_FALSE(blas_layout<float>(3, 4, 4, -1));  // flipped columns
  EXPECT_FALSE(blas_layout<float>(3, 4, 2, 1));   // overlapping rows
}

/// The product of a [..., m, k] and b [..., k, n] (batch dims broadcast) by a triple loop in
/// double, rounded to dtype.
TensorData naive_matmul(const TensorData& a, const TensorData& b, DType dtype) {
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  const std::size_t rank = as.rank();
  const int64_t m = as[rank - 2], k = as[rank - 1], n = bs[rank - 1];
  std::vector<int64_t> batch_dims;
  for (std::size_t d = 0; d + 2 < rank; ++d)
    batch_dims.push_back(std::max(as[d], bs[d]));
  const Shape batches(batch_dims);
  std::vector<int64_t> out_dims = batch_dims;
  out_dims.push_back(m);
  out_dims.push_back(n);
  const std::vector<double> av = a.to_vector<double>();
  const std::vector<double> bv = b.to_vector<double>();
  std::vector<double> out;
  for (int64_t batch = 0; batch < batches.num_elements(); ++batch) {
    // The batch index, and each operand's batch (a size-1 batch dim repeats).
    int64_t a_batch = 0, b_batch = 0, rest = batch;
    int64_t a_scale = 1, b_scale = 1;
    for (std::size_t d = batch_dims.size(); d-- > 0;) {
      const int64_t i = rest % batch_dims[d];
      rest /= batch_dims[d];
      a_batch += (as[d] == 1 ? 0 : i) * a_scale;
      b_batch += (bs[d] == 1 ? 0 : i) * b_scale;
      a_scale *= as[d];
      b_scale *= bs[d];
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int64_t p = 0; p < k; ++p)
          sum += av[(a_batch * m + i) * k + p] * bv[(b_batch * k + p) * n + j];
        out.push_back(sum);
      }
    }
  }
  return TensorData(out, Shape(out_dims), dtype);
}

struct MatmulCase {
  const char* name;
  std::function<TensorHandle(const Device&, DType)> lhs;
  std::function<TensorHandle(const Device&, DType)> rhs;
};

/// An operand of shape with positive values.
std::function<TensorHandle(const Device&, DType)> make(Shape shape) {
  return [shape](const Device& d, DType t) { return positive(shape, d, t); };
}

/// The transpose of an operand of shape (unit row stride).
std::function<TensorHandle(const Device&, DType)> transposed(Shape shape) {
  return [shape](const Device& d, DType t) { return ops::transpose(positive(shape, d, t)); };
}

/// Expects every case's product on flex, in each dtype, to be naive_matmul's of the same
/// (rounded) operands, as expect(actual, expected, what) judges.
template <typename Expect>
void expect_naive_products(const std::vector<MatmulCase>& cases, const std::vector<DType>& dtypes,
                           const Expect& expect) {
  for (const DType dtype : dtypes) {
    for (const MatmulCase& c : cases) {
      const Device flex = Device::flex();
      const TensorHandle lhs = c.lhs(flex, dtype);
      const TensorHandle rhs = c.rhs(flex, dtype);
      // The operands' logical values, in f64 as the reference reads them.
      const TensorData expected = naive_matmul(ops::into_data(lhs).convert(DType::F64),
                                               ops::into_data(rhs).convert(DType::F64), dtype);
      expect(ops::into_data(ops::matmul(lhs, rhs)), expected,
             std::string(c.name) + " " + std::string(dtype_name(dtype)));
    }
  }
}

/// Positive values: products of up to 80 terms do not cancel, so f32 stays within its tolerance
/// of the f64 reference whatever order BLAS sums in.
std::vector<MatmulCase> matmul_cases() {
  return {
      {"plain", make({5, 7}), make({7, 3})},
      {"transposed lhs", transposed({7, 5}), make({7, 3})},
      {"transposed rhs", make({5, 7}), transposed({3, 7})},
      {"both transposed", transposed({7, 5}), transposed({3, 7})},
      {"stepped lhs (copied)",
       [](const Device& d, DType t) {
         return ops::slice(positive({5, 14}, d, t), {Slice(), Slice(0, 14, 2)});
       },
       make({7, 3})},
      {"flipped rhs (copied)", make({5, 7}),
       [](const Device& d, DType t) {
         return ops::flip(positive({7, 3}, d, t), {0});
       }},
      {"batched", make({2, 4, 5}), make({2, 5, 3})},
      {"broadcast batches", make({2, 1, 4, 5}), make({1, 3, 5, 6})},
      {"rhs shared by every batch (one GEMM)", make({3, 4, 5}), make({1, 5, 6})},
      {"expanded lhs batch",
       [](const Device& d, DType t) {
         return ops::expand(positive({1, 4, 5}, d, t), {3, 4, 5});
       },
       make({3, 5, 2})},
      {"many small batches (run side by side)", make({16, 8, 8}), make({16, 8, 8})},
      {"one larger product", make({70, 80}), make({80, 60})},
      {"vector shapes", make({1, 9}), make({9, 1})},
  };
}

TEST(FlexMatmul, EveryOperandLayoutGivesTheNaiveProduct) {
  // f16 and bf16 round the product once; their tolerance covers f32 accumulation.
  expect_naive_products(matmul_cases(), {DType::F32, DType::F64, DType::F16, DType::BF16},
                        expect_close);
}

TEST(FlexMatmul, ReducedProductsEqualTheProductOfTheRoundedInputs) {
  // Extents that are no multiple of oneDNN's blocks, k long enough for f32 sums to matter.
  const std::vector<MatmulCase> cases = {
      {"plain", make({97, 301}), make({301, 75})},
      {"transposed lhs", transposed({301, 97}), make({301, 75})},
      {"transposed rhs", make({97, 301}), transposed({75, 301})},
      {"rows of a wider matrix",
       [](const Device& d, DType t) {
         return ops::slice(positive({97, 320}, d, t), {Slice(), Slice(0, 301)});
       },
       make({301, 75})},
      {"batches folded into rows", make({3, 40, 130}), make({1, 130, 66})},
      {"broadcast batches", make({2, 1, 33, 130}), make({1, 3, 130, 47})},
  };
  expect_naive_products(cases, {DType::BF16, DType::F16}, expect_close_as_torch);
}

TEST(FlexMatmul, Bf16RunsNativelyExactlyWhereTheCpuHasAvx512Bf16) {
  // The CPU's own word (cpuid), not oneDNN's: AMX CPUs have AVX512-BF16 too.
  const bool has_instructions = __builtin_cpu_supports("avx512bf16");
  EXPECT_EQ(dnnl_matmul_native(DType::BF16), dnnl_in_build() && has_instructions);
  EXPECT_FALSE(dnnl_matmul_native(DType::F32));
}

TEST(FlexMatmul, IntegersAndEmptyProductsTakeTheReferencePath) {
  const std::vector<int32_t> a = {1, 2, 3, 4, 5, 6};
  const std::vector<int32_t> b = {7, 8, 9, 10, 11, 12};
  FlexBackend flex;
  const TensorData product =
      run_on(flex, ir::Matmul{}, {TensorData(a, {2, 3}), TensorData(b, {3, 2})}).at(0);
  EXPECT_EQ(product.to_vector<int32_t>(), (std::vector<int32_t>{58, 64, 139, 154}));
  const TensorData zeros =
      run_on(flex, ir::Matmul{},
             {TensorData::zeros({2, 0}, DType::F32), TensorData::zeros({0, 3}, DType::F32)})
          .at(0);
  EXPECT_EQ(zeros, TensorData::zeros({2, 3}, DType::F32)) << "k = 0 sums nothing";
}

}  // namespace
}  // namespace ember::flex::test
