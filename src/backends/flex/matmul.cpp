// Batched matrix product through BLAS GEMM. Each operand's last two dims are passed to BLAS as
// they lie (a transposed view becomes CblasTrans, no copy); only a layout BLAS cannot read (a
// broadcast, flipped or doubly strided matrix) is copied, once. Batch dims may have any strides,
// broadcast ones included. f16 and bf16 run natively through oneDNN's matmul where the CPU has the
// instructions (dnnl_matmul.h), else are converted to f32 and back, one pass each way; either way
// the products are summed in f32 and rounded once, as ndarray does.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "backends/flex/blas.h"
#include "backends/flex/convert.h"
#include "backends/flex/copy.h"
#include "backends/flex/dnnl_matmul.h"
#include "backends/flex/kernels.h"
#include "backends/flex/strided_loop.h"
#include "backends/flex/thread_pool.h"
#include "backends/flex/view_ops.h"

namespace ember::flex {
namespace {

/// Below this many multiply-adds OpenBLAS runs a GEMM on one thread (its own threshold), so
/// batches of such GEMMs run side by side on the pool instead.
constexpr int64_t kSmallGemm = int64_t{1} << 18;

/// One operand of a batched GEMM: the view read, the BLAS layout of each of its matrices, and
/// its strides over the output's batch dims (0 where it is broadcast).
template <typename T>
struct GemmOperand {
  View view;
  BlasMatrix<T> matrix;
  std::vector<int64_t> batch_strides;
};

Shape batch_shape(const Shape& shape) {
  return Shape(std::vector<int64_t>(shape.dims().begin(), shape.dims().end() - 2));
}

template <typename T>
GemmOperand<T> gemm_operand(const View& x, const Shape& batches) {
  const std::size_t rank = x.shape.rank();
  const auto layout_of = [&](const View& v) {
    return blas_layout<T>(v.shape[rank - 2], v.shape[rank - 1], v.strides[rank - 2],
                          v.strides[rank - 1]);
  };
  View view = x;
  std::optional<BlasMatrix<T>> layout = layout_of(view);
  if (!layout) {
    view = contiguous(x);
    layout = layout_of(view);  // row-major: always readable
  }
  View batch_part = view;
  batch_part.shape = batch_shape(view.shape);
  batch_part.strides.resize(rank - 2);
  std::vector<int64_t> strides = broadcast_to(batch_part, batches).strides;
  return {std::move(view), *layout, std::move(strides)};
}

/// c[m, n] (leading dimension ldc) = op(a) op(b): BLAS's GEMM for f32 and f64, oneDNN's for
/// the reduced dtypes.
template <typename T>
void product(int64_t m, int64_t n, int64_t k, const BlasMatrix<T>& a, const BlasMatrix<T>& b, T* c,
             int64_t ldc) {
  if constexpr (std::is_floating_point_v<T>) {
    gemm(m, n, k, a, b, T{0}, c, ldc);
  } else {
    gemm_reduced(m, n, k, a, b, c, ldc);
  }
}

/// The GEMM extents of one batch.
struct GemmSize {
  int64_t m, n, k;
  int64_t multiply_adds() const { return m * n * k; }
};

/// Batches [begin, end) of a batched GEMM: batch i writes c + i * m * n.
template <typename T>
void gemm_batches(const GemmOperand<T>& a, const GemmOperand<T>& b, const GemmSize& size,
                  const StridedLoop<2>& loop, int64_t begin, int64_t end, T* c) {
  int64_t batch = begin;
  loop.for_range(begin, end, [&](const StridedLoop<2>::Offsets& at, int64_t count) {
    for (int64_t j = 0; j < count; ++j, ++batch) {
      BlasMatrix<T> lhs = a.matrix;
      BlasMatrix<T> rhs = b.matrix;
      lhs.data = a.view.template data<T>() + at[0] + j * loop.inner_stride(0);
      rhs.data = b.view.template data<T>() + at[1] + j * loop.inner_stride(1);
      product(size.m, size.n, size.k, lhs, rhs, c + batch * size.m * size.n, size.n);
    }
  });
}

/// Whether every batch of a reads rows laid out one after another and b is the same matrix for
/// all: then the batches are one GEMM with batches * m rows.
template <typename T>
bool folds_into_rows(const GemmOperand<T>& a, const GemmOperand<T>& b, const Shape& batches,
                     int64_t m) {
  for (const int64_t s : b.batch_strides) {
    if (s != 0) return false;
  }
  if (a.matrix.transposed) return false;
  const StridedLoop<1> loop(batches, {a.batch_strides});
  return loop.inner_size() == loop.size() &&
         (loop.size() == 1 || loop.inner_stride(0) == m * a.matrix.ld);
}

template <typename T>
View matmul_as(const View& lhs, const View& rhs, const ir::TensorMeta& out) {
  const std::size_t rank = out.shape.rank();
  const Shape batches = batch_shape(out.shape);
  const GemmSize size{out.shape[rank - 2], out.shape[rank - 1], lhs.shape[rank - 1]};
  const GemmOperand<T> a = gemm_operand<T>(lhs, batches);
  const GemmOperand<T> b = gemm_operand<T>(rhs, batches);
  OutputTensor result(out);
  T* c = result.data<T>();
  const int64_t count = batches.num_elements();
  if (folds_into_rows(a, b, batches, size.m)) {
    BlasMatrix<T> lhs_rows = a.matrix;
    BlasMatrix<T> rhs_matrix = b.matrix;
    lhs_rows.data = a.view.template data<T>();
    rhs_matrix.data = b.view.template data<T>();
    product(count * size.m, size.n, size.k, lhs_rows, rhs_matrix, c, size.n);
    return result.view();
  }
  const StridedLoop<2> loop(batches, {a.batch_strides, b.batch_strides});
  if (size.multiply_adds() >= kSmallGemm) {
    gemm_batches(a, b, size, loop, 0, count, c);
  } else {
    parallel_for(count, kSmallGemm / size.multiply_adds() + 1, [&](int64_t begin, int64_t end) {
      gemm_batches(a, b, size, loop, begin, end, c);
    });
  }
  return result.view();
}

}  // namespace

std::optional<View> run(const ir::Matmul& /*op*/, Views in, Outputs out) {
  const Shape& shape = out[0].shape;
  const std::size_t rank = shape.rank();
  const int64_t m = shape[rank - 2];
  const int64_t n = shape[rank - 1];
  const int64_t k = in[0].shape[rank - 1];
  const DType dtype = in[0].dtype;
  // Empty products (and integers) are ndarray's; so are extents beyond BLAS's int.
  if (!is_float(dtype) || shape.num_elements() == 0 || k == 0 ||
      !fits_blas(m * batch_shape(shape).num_elements(), n, k)) {
    return std::nullopt;
  }
  if (dtype == DType::F64) return matmul_as<double>(in[0], in[1], out[0]);
  if (dtype == DType::F32) return matmul_as<float>(in[0], in[1], out[0]);
  if (dtype == DType::BF16 && dnnl_matmul_native(dtype))
    return matmul_as<BFloat16>(in[0], in[1], out[0]);
  if (dtype == DType::F16 && dnnl_matmul_native(dtype))
    return matmul_as<Half>(in[0], in[1], out[0]);
  const View wide = matmul_as<float>(converted(in[0], DType::F32), converted(in[1], DType::F32),
                                     {shape, DType::F32});
  return converted(wide, dtype);
}

}  // namespace ember::flex
