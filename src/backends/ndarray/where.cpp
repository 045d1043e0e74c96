// Selection by a Bool condition: where (cond ? a : b) and mask_fill (mask ? value : x).
#include "backends/ndarray/element.h"
#include "backends/ndarray/element_copy.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {

TensorData run(const ir::Where& /*op*/, Inputs in, Outputs out) {
  const TensorData& cond = *in[0];
  const TensorData& a = *in[1];
  const TensorData& b = *in[2];
  const Shape& shape = out[0].shape;
  const std::vector<int64_t> cond_at = broadcast_offsets(cond.shape(), shape);
  const std::vector<int64_t> a_at = broadcast_offsets(a.shape(), shape);
  const std::vector<int64_t> b_at = broadcast_offsets(b.shape(), shape);
  const auto take_a = cond.as<bool>();
  TensorData result = zeros_like(out[0]);
  for (std::size_t i = 0; i < cond_at.size(); ++i) {
    const auto index = static_cast<int64_t>(i);
    if (take_a[cond_at[i]]) {
      copy_element(a, a_at[i], result, index);
    } else {
      copy_element(b, b_at[i], result, index);
    }
  }
  return result;
}

TensorData run(const ir::MaskFill& op, Inputs in, Outputs /*out: x's meta*/) {
  const TensorData& x = *in[0];
  const std::vector<int64_t> mask_at = broadcast_offsets(in[1]->shape(), x.shape());
  const auto fill = in[1]->as<bool>();
  TensorData result = x;
  visit_dtype(x.dtype(), [&]<typename T>() {
    const T value = scalar_as<T>(op.value);
    auto dst = result.as_mut<T>();
    for (std::size_t i = 0; i < dst.size(); ++i) {
      if (fill[mask_at[i]]) dst[i] = value;
    }
  });
  return result;
}

}  // namespace ember::ndarray
