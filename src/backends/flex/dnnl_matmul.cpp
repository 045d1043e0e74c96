// gemm_reduced (dnnl_matmul.h): the output cut into tiles (gemm_tiles.h), each a matmul primitive
// on one OpenMP thread, its operands described by their strides as they lie (a transposed operand
// is a column-major one: no copy). Primitives are cached per thread by shape and strides, and run
// in the thread's kept scratchpad (DnnlContext::scratchpad).
#include "backends/flex/dnnl_matmul.h"

#include "ember/error.h"

#ifdef EMBER_WITH_DNNL

#include <unordered_map>
#include <vector>

#include "backends/flex/dnnl_context.h"
#include "backends/flex/gemm_tiles.h"
#include "backends/flex/one_openmp_thread.h"

namespace ember::flex {
namespace {

using dnnl::memory;

/// The [rows, cols] matrix op(m) as oneDNN describes it: strides over its rows and columns.
template <typename T>
memory::desc matrix_desc(int64_t rows, int64_t cols, const BlasMatrix<T>& m) {
  const memory::dims strides = m.transposed ? memory::dims{1, m.ld} : memory::dims{m.ld, 1};
  return {{rows, cols}, dnnl_type(dtype_of<T>()), strides};
}

/// A matmul primitive and the scratchpad it asks for (scratchpad_mode::user: DnnlContext's).
struct TileMatmul {
  dnnl::matmul matmul;
  memory::desc scratchpad;
};

/// The matmul primitive of one tile's shape and strides, made on first use by this thread;
/// nullptr when oneDNN has only a reference implementation for it.
template <typename T>
const TileMatmul* primitive(int64_t m, int64_t n, int64_t k, const BlasMatrix<T>& a,
                            const BlasMatrix<T>& b, int64_t ldc) {
  std::vector<int64_t> key{
      static_cast<int64_t>(dtype_of<T>()), m, n, k, a.ld, a.transposed, b.ld, b.transposed, ldc};
  return dnnl_cached<TileMatmul>(std::move(key), [&]() -> std::optional<TileMatmul> {
    const BlasMatrix<T> out{nullptr, ldc, false};
    try {
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      const dnnl::matmul::primitive_desc pd(
          dnnl::matmul::desc(matrix_desc(m, k, a), matrix_desc(k, n, b), matrix_desc(m, n, out)),
          attr, dnnl_context().engine);
      if (is_reference_impl(pd.impl_info_str())) return std::nullopt;
      return TileMatmul{dnnl::matmul(pd), pd.scratchpad_desc()};
    } catch (const dnnl::error&) {
      return std::nullopt;
    }
  });
}

/// One tile's product on the calling thread.
template <typename T>
void matmul_here(int64_t m, int64_t n, int64_t k, const BlasMatrix<T>& a, const BlasMatrix<T>& b,
                 T* c, int64_t ldc) {
  const OneOpenMpThread one_thread;  // before the primitive is made: it keeps the thread count
  const TileMatmul* tile = primitive(m, n, k, a, b, ldc);
  if (!tile) {
    throw ExecutionError("[matmul] oneDNN has no native " + std::string(dtype_name(dtype_of<T>())) +
                         " matmul for a " + std::to_string(m) + "x" + std::to_string(k) + " @ " +
                         std::to_string(k) + "x" + std::to_string(n) + " tile");
  }
  DnnlContext& context = dnnl_context();
  const auto wrap = [&](const memory::desc& desc, const T* data) {
    return memory(desc, context.engine, const_cast<T*>(data));
  };
  const BlasMatrix<T> out{c, ldc, false};
  tile->matmul.execute(context.stream,
                       {{DNNL_ARG_SRC, wrap(matrix_desc(m, k, a), a.data)},
                        {DNNL_ARG_WEIGHTS, wrap(matrix_desc(k, n, b), b.data)},
                        {DNNL_ARG_DST, wrap(matrix_desc(m, n, out), c)},
                        {DNNL_ARG_SCRATCHPAD, context.scratchpad(tile->scratchpad)}});
  context.stream.wait();
}

}  // namespace

bool dnnl_matmul_native(DType dtype) {
  return dnnl_native(dtype);
}

template <typename T>
void gemm_reduced(int64_t m, int64_t n, int64_t k, const BlasMatrix<T>& a, const BlasMatrix<T>& b,
                  T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;  // c is empty: nothing to write
  for_each_gemm_tile(m, n, k, [&](int64_t row, int64_t rows, int64_t col, int64_t cols) {
    matmul_here(rows, cols, k, rows_of(a, row), columns_of(b, col), c + row * ldc + col, ldc);
  });
}

}  // namespace ember::flex

#else

namespace ember::flex {

bool dnnl_matmul_native(DType) {
  return false;
}

template <typename T>
void gemm_reduced(int64_t, int64_t, int64_t, const BlasMatrix<T>&, const BlasMatrix<T>&, T*,
                  int64_t) {
  throw ExecutionError("[matmul] this build has no oneDNN for native bf16/f16 products");
}

}  // namespace ember::flex

#endif

namespace ember::flex {

template void gemm_reduced(int64_t, int64_t, int64_t, const BlasMatrix<BFloat16>&,
                           const BlasMatrix<BFloat16>&, BFloat16*, int64_t);
template void gemm_reduced(int64_t, int64_t, int64_t, const BlasMatrix<Half>&,
                           const BlasMatrix<Half>&, Half*, int64_t);

}  // namespace ember::flex
