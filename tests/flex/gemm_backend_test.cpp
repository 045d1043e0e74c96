// f32 GEMM through oneDNN (gemm_onednn, the path blas.cpp takes where OpenBLAS fell back to
// generic kernels) and through ember's own kernel (gemm_packed, for large products on many
// threads) against a triple loop in double written here, and the EMBER_GEMM, core-name and size
// rules that choose them.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "backends/flex/blas.h"
#include "backends/flex/dnnl_conv.h"
#include "backends/flex/dnnl_gemm.h"
#include "backends/flex/packed_gemm.h"
#include "backends/flex/packing_buffer.h"
#include "ember/device.h"
#include "ember/error.h"

namespace ember::flex::test {
namespace {

struct GemmCase {
  int64_t m, n, k;
};

/// A matrix op(M) [rows, cols] stored with a leading dimension pad beyond its row length:
/// row-major [rows, cols], or [cols, rows] when transposed. Values of both signs in [-2, 2).
struct Operand {
  std::vector<float> storage;
  BlasMatrix<float> matrix;

  Operand(int64_t rows, int64_t cols, bool transposed, int64_t pad, int seed) {
    const int64_t stored_rows = transposed ? cols : rows;
    const int64_t ld = (transposed ? rows : cols) + pad;
    storage.resize(static_cast<std::size_t>(stored_rows * ld));
    for (std::size_t i = 0; i < storage.size(); ++i)
      storage[i] = static_cast<float>((i * 37 + seed) % 101) / 25.0f - 2.0f;
    matrix = {storage.data(), ld, transposed};
  }

  /// op(M)[row, col].
  double at(int64_t row, int64_t col) const {
    const int64_t offset = matrix.transposed ? col * matrix.ld + row : row * matrix.ld + col;
    return storage[static_cast<std::size_t>(offset)];
  }
};

/// A GEMM under test, with gemm's signature (blas.h).
using GemmFunction = std::function<void(int64_t, int64_t, int64_t, const BlasMatrix<float>&,
                                        const BlasMatrix<float>&, float, float*, int64_t)>;

/// Runs gemm on c [m, n] with leading dimension n + pad (initially varied values, or NaN where
/// beta is 0: they must not be read) and checks every element against op(a) op(b) + beta c in
/// double, and that the padding is left as it was.
void check_case(const GemmFunction& gemm, const GemmCase& g, bool a_transposed, bool b_transposed,
                float beta, int64_t pad) {
  SCOPED_TRACE(testing::Message() << g.m << "x" << g.n << "x" << g.k << " ta=" << a_transposed
                                  << " tb=" << b_transposed << " beta=" << beta << " pad=" << pad);
  const Operand a(g.m, g.k, a_transposed, pad, 1);
  const Operand b(g.k, g.n, b_transposed, pad, 2);
  Operand c(g.m, g.n, false, pad, 3);
  const std::vector<float> c_before = c.storage;
  if (beta == 0) {
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j)
        c.storage[static_cast<std::size_t>(i * c.matrix.ld + j)] =
            std::numeric_limits<float>::quiet_NaN();
  }
  gemm(g.m, g.n, g.k, a.matrix, b.matrix, beta, c.storage.data(), c.matrix.ld);
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      double expected = beta * c_before[static_cast<std::size_t>(i * c.matrix.ld + j)];
      for (int64_t p = 0; p < g.k; ++p)
        expected += a.at(i, p) * b.at(p, j);
      ASSERT_NEAR(c.at(i, j), expected, 1e-5 * (4.0 * static_cast<double>(g.k) + 1.0))
          << "at " << i << ", " << j;
    }
    for (int64_t j = g.n; j < c.matrix.ld; ++j) {
      const auto offset = static_cast<std::size_t>(i * c.matrix.ld + j);
      ASSERT_EQ(c.storage[offset], c_before[offset]) << "padding at " << i << ", " << j;
    }
  }
}

TEST(FlexGemmOneDnn, EveryTransposeSizeBetaAndLeadingDimensionGivesTheNaiveProduct) {
  if (!dnnl_in_build()) GTEST_SKIP() << "built without oneDNN (libdnnl-dev)";
  // Unit extents, odd sizes, and sizes cut over the pool into rows, columns or both (a grid of
  // tiles, with 4 or more threads).
  const GemmCase cases[] = {{1, 1, 1},    {1, 7, 5},    {6, 1, 5},      {5, 4, 1},
                            {37, 19, 23}, {19, 37, 23}, {300, 200, 64}, {64, 300, 48}};
  const GemmFunction onednn = [](int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a,
                                 const BlasMatrix<float>& b, float beta, float* c, int64_t ldc) {
    ASSERT_TRUE(gemm_onednn(m, n, k, a, b, beta, c, ldc));
  };
  for (const GemmCase& g : cases)
    for (const bool a_transposed : {false, true})
      for (const bool b_transposed : {false, true})
        for (const float beta : {0.0f, 1.0f})
          for (const int64_t pad : {0, 3})
            check_case(onednn, g, a_transposed, b_transposed, beta, pad);
}

TEST(FlexGemmPacked, EveryTransposeSizeBetaAndLeadingDimensionGivesTheNaiveProduct) {
  if (!packed_gemm_available()) GTEST_SKIP() << "no packed kernel for this CPU's vector target";
  // Tiles cut short in rows (14 on AVX-512, 6 elsewhere) and columns (two vectors); an a whose
  // packed size is not a whole number of cache lines (b's slivers must still start aligned);
  // depths of one step, of two with a short second one (steps of 256), and of none; several
  // units of work and two blocks of b's columns (512 each).
  const GemmCase cases[] = {{1, 1, 1},      {5, 3, 3},       {37, 19, 23}, {19, 37, 300},
                            {300, 200, 64}, {150, 530, 260}, {7, 9, 0}};
  // Every kernel this CPU can run (AVX-512's 14-row tiles, AVX2's and SSE4's 6-row ones).
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (const GemmCase& g : cases)
      for (const bool a_transposed : {false, true})
        for (const bool b_transposed : {false, true})
          for (const float beta : {0.0f, 0.5f})
            check_case(gemm_packed, g, a_transposed, b_transposed, beta, 3);
    check_case(gemm_packed, {33, 65, 17}, false, false, 1.0f, 0);
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
}

TEST(FlexGemmPacked, ThePackingBufferIsKeptUntilMemoryCleanup) {
  if (!packed_gemm_available()) GTEST_SKIP() << "no packed kernel for this CPU's vector target";
  const auto product = [] {
    const Operand a(40, 300, false, 0, 1);
    const Operand b(300, 50, false, 0, 2);
    std::vector<float> c(40 * 50);
    gemm_packed(40, 50, 300, a.matrix, b.matrix, 0.0f, c.data(), 50);
  };
  product();
  // At least op(a) and op(b) themselves: 40 x 300 and 300 x 50 floats.
  const int64_t kept = kept_packing_buffer_bytes();
  EXPECT_GE(kept, (40 + 50) * 300 * 4);
  product();  // the same product reuses the kept buffer
  EXPECT_EQ(kept_packing_buffer_bytes(), kept);
  Device::flex().memory_cleanup();
  EXPECT_EQ(kept_packing_buffer_bytes(), 0);
}

TEST(FlexGemmPacked, PreferredOnlyForLargeProductsOnManyThreads) {
  constexpr int64_t kLarge = 4096;
  EXPECT_FALSE(packed_gemm_preferred(kLarge, kLarge, kLarge, 2));
  EXPECT_FALSE(packed_gemm_preferred(kLarge, kLarge, kLarge, 8));
  EXPECT_FALSE(packed_gemm_preferred(2048, 2048, 2048, 16));
  EXPECT_FALSE(packed_gemm_preferred(16, int64_t{1} << 15, int64_t{1} << 15, 16));  // skinny
  // Extents whose product overflows 64 bits still count as large.
  EXPECT_EQ(packed_gemm_preferred(int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31, 16),
            packed_gemm_preferred(kLarge, kLarge, kLarge, 16));
}

TEST(FlexGemmLibrary, EnvironmentNamesALibraryOrLeavesTheChoiceToTheCpu) {
  EXPECT_EQ(gemm_library_from(nullptr), std::nullopt);
  EXPECT_EQ(gemm_library_from(""), std::nullopt);
  EXPECT_EQ(gemm_library_from("openblas"), GemmLibrary::OpenBlas);
  EXPECT_EQ(gemm_library_from("onednn"), GemmLibrary::OneDnn);
  EXPECT_EQ(gemm_library_from("packed"), GemmLibrary::Packed);
}

TEST(FlexGemmLibrary, AnInvalidEnvironmentValueIsRejectedByName) {
  try {
    gemm_library_from("mkl");
    FAIL() << "EMBER_GEMM=mkl was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("EMBER_GEMM"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mkl"), std::string::npos) << e.what();
  }
}

TEST(FlexGemmLibrary, OnlyPreAvx2OpenBlasCoresCountAsAFallback) {
  // Names as OpenBLAS 0.3.21's driver/others/dynamic.c spells them; the check ignores case.
  for (const char* generic : {"Prescott", "PRESCOTT", "Core2", "Nehalem", "Sandybridge", "Unknown"})
    EXPECT_TRUE(is_pre_avx2_openblas_core(generic)) << generic;
  for (const char* tuned : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids", ""})
    EXPECT_FALSE(is_pre_avx2_openblas_core(tuned)) << tuned;
}

}  // namespace
}  // namespace ember::flex::test
