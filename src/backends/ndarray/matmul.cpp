// Batched matrix product with broadcast batch dims.
#include <algorithm>
#include <vector>

#include "backends/ndarray/arithmetic.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {
namespace {

/// shape without its last two dims: the batch dims of a matrix operand.
Shape batch_shape(const Shape& shape) {
  return Shape(std::vector<int64_t>(shape.dims().begin(), shape.dims().end() - 2));
}

}  // namespace

TensorData run(const ir::Matmul& op, Inputs in, Outputs out) {
  const TensorData& lhs = *in[0];
  const TensorData& rhs = *in[1];
  const std::size_t rank = lhs.shape().rank();
  const int64_t m = lhs.shape()[rank - 2];
  const int64_t k = lhs.shape()[rank - 1];
  const int64_t n = rhs.shape()[rank - 1];
  const Shape batches = batch_shape(out[0].shape);
  // For each output batch, the lhs and rhs batch it reads (a broadcast batch dim repeats one).
  const std::vector<int64_t> lhs_batch = broadcast_offsets(batch_shape(lhs.shape()), batches);
  const std::vector<int64_t> rhs_batch = broadcast_offsets(batch_shape(rhs.shape()), batches);
  TensorData result = zeros_like(out[0]);
  visit_dtype(lhs.dtype(), [&]<typename T>() {
    if constexpr (is_bool_v<T>) {
      throw_unsupported(op, DType::Bool);
    } else {
      const auto a = lhs.as<T>();
      const auto b = rhs.as<T>();
      auto c = result.as_mut<T>();
      // i-p-j order: the inner loop runs along contiguous rows of b and of the accumulator
      // (it vectorizes), while each c[i, j] still sums its products in order p = 0..k-1.
      // Accumulates in compute_t<T>: f64 in double, f32/f16/bf16 in float (what a GPU GEMM
      // does), ints wrapping in their own type.
      std::vector<compute_t<T>> row(static_cast<std::size_t>(n));
      for (std::size_t batch = 0; batch < lhs_batch.size(); ++batch) {
        const int64_t a0 = lhs_batch[batch] * m * k;
        const int64_t b0 = rhs_batch[batch] * k * n;
        const int64_t c0 = static_cast<int64_t>(batch) * m * n;
        for (int64_t i = 0; i < m; ++i) {
          std::fill(row.begin(), row.end(), compute_t<T>{});
          for (int64_t p = 0; p < k; ++p) {
            const compute_t<T> a_ip = load(a[a0 + i * k + p]);
            const int64_t b_row = b0 + p * n;
            for (int64_t j = 0; j < n; ++j)
              row[j] = add_values(row[j], mul_values(a_ip, load(b[b_row + j])));
          }
          for (int64_t j = 0; j < n; ++j)
            c[c0 + i * n + j] = store<T>(row[j]);
        }
      }
    }
  });
  return result;
}

}  // namespace ember::ndarray
