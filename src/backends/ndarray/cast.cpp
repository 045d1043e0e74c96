// Cast: element conversion between any two dtypes (float → int truncates and saturates).
#include "backends/ndarray/kernels.h"

namespace ember::ndarray {

TensorData run(const ir::Cast& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  TensorData result = zeros_like(out[0]);
  visit_dtype(x.dtype(), [&]<typename From>() {
    visit_dtype(op.dtype, [&]<typename To>() {
      const auto src = x.as<From>();
      auto dst = result.as_mut<To>();
      for (std::size_t i = 0; i < src.size(); ++i)
        dst[i] = detail::convert_element<To>(src[i]);
    });
  });
  return result;
}

}  // namespace ember::ndarray
