// Ops that create a tensor from their arguments alone: full, arange, random.
#include "backends/ndarray/arithmetic.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "ir/random.h"

namespace ember::ndarray {
namespace {

/// result[i] = value(i) converted to result's dtype, for every element.
template <typename F>
TensorData generate(const ir::TensorMeta& meta, F value) {
  TensorData result = zeros_like(meta);
  visit_dtype(meta.dtype, [&]<typename T>() {
    auto dst = result.as_mut<T>();
    for (std::size_t i = 0; i < dst.size(); ++i)
      dst[i] = value.template operator()<T>(i);
  });
  return result;
}

}  // namespace

TensorData run(const ir::Full& op, Inputs /*in*/, Outputs out) {
  return generate(out[0], [&]<typename T>(std::size_t) { return scalar_as<T>(op.value); });
}

TensorData run(const ir::Arange& op, Inputs /*in*/, Outputs out) {
  // start + i * step lies between start and end, but i * step alone may not fit in int64
  // (start = INT64_MIN, step = 2^62); modular arithmetic still gives the exact sum.
  return generate(out[0], [&]<typename T>(std::size_t i) {
    const int64_t value = wrapping_add(op.start, wrapping_mul(static_cast<int64_t>(i), op.step));
    return detail::convert_element<T>(value);
  });
}

TensorData run(const ir::Random& op, Inputs /*in*/, Outputs out) {
  return generate(out[0], [&]<typename T>(std::size_t i) {
    return detail::convert_element<T>(ir::random_element<T>(op.distribution, op.key, i));
  });
}

}  // namespace ember::ndarray
