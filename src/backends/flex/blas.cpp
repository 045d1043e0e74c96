#include "backends/flex/blas.h"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>

#include "backends/flex/dnnl_conv.h"
#include "backends/flex/dnnl_gemm.h"
#include "backends/flex/packed_gemm.h"
#include "backends/flex/thread_pool.h"
#include "ember/error.h"
#include "ember/float16.h"

namespace ember::flex {
namespace {

/// Gives OpenBLAS the pool's thread count whenever it changed (set_num_threads), so that both
/// pools size themselves alike.
void configure_blas_threads() {
  static std::atomic<int> configured{0};
  static std::mutex mutex;
  const int threads = ThreadPool::instance().threads();
  if (configured.load(std::memory_order_acquire) == threads) return;
  const std::lock_guard lock(mutex);
  if (configured.load(std::memory_order_relaxed) == threads) return;
  openblas_set_num_threads(threads);
  configured.store(threads, std::memory_order_release);
}

blasint as_blas(int64_t value) {
  return static_cast<blasint>(value);
}

CBLAS_TRANSPOSE transpose_flag(bool transposed) {
  return transposed ? CblasTrans : CblasNoTrans;
}

bool equals_ignoring_case(std::string_view x, std::string_view y) {
  return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](char p, char q) {
    return std::tolower(static_cast<unsigned char>(p)) ==
           std::tolower(static_cast<unsigned char>(q));
  });
}

/// The automatic rule: oneDNN where OpenBLAS runs pre-AVX2 kernels on an AVX2 CPU (OpenBLAS 0.3.21
/// runs its SSE3 Prescott kernels on Emerald Rapids, at a fifth of oneDNN's speed).
GemmLibrary automatic_gemm_library() {
  const bool fallback = is_pre_avx2_openblas_core(openblas_get_corename()) &&
                        __builtin_cpu_supports("avx2") && dnnl_in_build();
  return fallback ? GemmLibrary::OneDnn : GemmLibrary::OpenBlas;
}

/// The library EMBER_GEMM names, read on the first call (nullopt: unset).
const std::optional<GemmLibrary>& library_from_environment() {
  static const std::optional<GemmLibrary> chosen = [] {
    const auto library = gemm_library_from(std::getenv("EMBER_GEMM"));
    if (library == GemmLibrary::OneDnn && !dnnl_in_build())
      throw InvalidArgument("EMBER_GEMM=onednn, but this build has no oneDNN (libdnnl-dev)");
    if (library == GemmLibrary::Packed && !packed_gemm_available())
      throw InvalidArgument("EMBER_GEMM=packed, but this CPU's vector target has no packed kernel");
    return library;
  }();
  return chosen;
}

/// The f32 GEMM library for an m x n x k product: EMBER_GEMM's, else ember's own for the large
/// products where it is measured faster, else the automatic rule (decided once).
GemmLibrary f32_gemm_library(int64_t m, int64_t n, int64_t k) {
  if (const auto& chosen = library_from_environment()) return *chosen;
  if (packed_gemm_preferred(m, n, k, ThreadPool::instance().threads())) return GemmLibrary::Packed;
  static const GemmLibrary library = automatic_gemm_library();
  return library;
}

}  // namespace

template <typename T>
std::optional<BlasMatrix<T>> blas_layout(int64_t rows, int64_t cols, int64_t row_stride,
                                         int64_t col_stride) {
  // The stride of a dim of size 1 is never followed: it takes whatever value BLAS wants.
  const bool unit_col_stride = cols == 1 || col_stride == 1;
  const int64_t row_ld = rows == 1 ? std::max<int64_t>(cols, 1) : row_stride;
  if (unit_col_stride && row_ld >= std::max<int64_t>(cols, 1) && fits_blas(row_ld, 1, 1)) {
    return BlasMatrix<T>{nullptr, row_ld, false};
  }
  // Seen transposed, a [rows, cols] matrix with unit row stride is a row-major [cols, rows] one.
  const bool unit_row_stride = rows == 1 || row_stride == 1;
  const int64_t col_ld = cols == 1 ? std::max<int64_t>(rows, 1) : col_stride;
  if (unit_row_stride && col_ld >= std::max<int64_t>(rows, 1) && fits_blas(col_ld, 1, 1)) {
    return BlasMatrix<T>{nullptr, col_ld, true};
  }
  return std::nullopt;
}

template std::optional<BlasMatrix<float>> blas_layout(int64_t, int64_t, int64_t, int64_t);
template std::optional<BlasMatrix<double>> blas_layout(int64_t, int64_t, int64_t, int64_t);
template std::optional<BlasMatrix<BFloat16>> blas_layout(int64_t, int64_t, int64_t, int64_t);
template std::optional<BlasMatrix<Half>> blas_layout(int64_t, int64_t, int64_t, int64_t);

std::optional<GemmLibrary> gemm_library_from(const char* env_value) {
  if (!env_value || !*env_value) return std::nullopt;
  if (std::strcmp(env_value, "openblas") == 0) return GemmLibrary::OpenBlas;
  if (std::strcmp(env_value, "onednn") == 0) return GemmLibrary::OneDnn;
  if (std::strcmp(env_value, "packed") == 0) return GemmLibrary::Packed;
  throw InvalidArgument(std::string("EMBER_GEMM=") + env_value +
                        ": expected \"openblas\", \"onednn\" or \"packed\" (or unset: chosen "
                        "by CPU and size)");
}

bool is_pre_avx2_openblas_core(std::string_view core_name) {
  // OpenBLAS 0.3.21's x86-64 DYNAMIC_ARCH core names (driver/others/dynamic.c) whose kernels use
  // neither AVX2 nor AVX-512; "Unknown" is what it reports when it matched nothing at all.
  static constexpr std::array<std::string_view, 21> kPreAvx2 = {
      "Unknown",   "Katmai", "Coppermine",  "Northwood", "Prescott",  "Banias",     "Atom",
      "Core2",     "Penryn", "Dunnington",  "Nehalem",   "Athlon",    "Opteron",    "Opteron_SSE3",
      "Barcelona", "Nano",   "Sandybridge", "Bobcat",    "Bulldozer", "Piledriver", "Steamroller"};
  return std::any_of(kPreAvx2.begin(), kPreAvx2.end(),
                     [&](std::string_view name) { return equals_ignoring_case(name, core_name); });
}

bool fits_blas(int64_t m, int64_t n, int64_t k) {
  constexpr int64_t limit = std::numeric_limits<blasint>::max();
  return m <= limit && n <= limit && k <= limit;
}

void gemm(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a, const BlasMatrix<float>& b,
          float beta, float* c, int64_t ldc) {
  const GemmLibrary library = f32_gemm_library(m, n, k);
  if (library == GemmLibrary::Packed) return gemm_packed(m, n, k, a, b, beta, c, ldc);
  if (library == GemmLibrary::OneDnn && gemm_onednn(m, n, k, a, b, beta, c, ldc)) return;
  configure_blas_threads();
  cblas_sgemm(CblasRowMajor, transpose_flag(a.transposed), transpose_flag(b.transposed), as_blas(m),
              as_blas(n), as_blas(k), 1.0f, a.data, as_blas(a.ld), b.data, as_blas(b.ld), beta, c,
              as_blas(ldc));
}

void gemm(int64_t m, int64_t n, int64_t k, const BlasMatrix<double>& a, const BlasMatrix<double>& b,
          double beta, double* c, int64_t ldc) {
  configure_blas_threads();
  cblas_dgemm(CblasRowMajor, transpose_flag(a.transposed), transpose_flag(b.transposed), as_blas(m),
              as_blas(n), as_blas(k), 1.0, a.data, as_blas(a.ld), b.data, as_blas(b.ld), beta, c,
              as_blas(ldc));
}

}  // namespace ember::flex
