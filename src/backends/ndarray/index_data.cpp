#include "backends/ndarray/index_data.h"

#include <string>
#include <utility>

#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"

namespace ember::ndarray {

std::vector<int64_t> checked_indices(const ir::Op& op, const TensorData& indices, int64_t dim,
                                     int64_t size) {
  std::vector<int64_t> checked;
  checked.reserve(static_cast<std::size_t>(indices.num_elements()));
  visit_dtype(indices.dtype(), [&]<typename I>() {
    if constexpr (!is_int_v<I>) {
      throw_unsupported(op, indices.dtype());
    } else {
      for (const I index : indices.as<I>()) {
        // Compared in I's own type (cmp_*), so a huge u64 cannot wrap into range.
        if (std::cmp_less(index, 0) || std::cmp_greater_equal(index, size)) {
          throw InvalidArgument("[" + ir::name(op) + "] index " + std::to_string(index) +
                                " out of range for dim " + std::to_string(dim) + " of size " +
                                std::to_string(size));
        }
        checked.push_back(static_cast<int64_t>(index));
      }
    }
  });
  return checked;
}

TensorData index_data(const std::vector<int64_t>& positions, const ir::TensorMeta& meta) {
  TensorData data = TensorData::zeros(meta.shape, meta.dtype);
  visit_dtype(meta.dtype, [&]<typename I>() {
    auto out = data.as_mut<I>();
    for (std::size_t i = 0; i < positions.size(); ++i) {
      out[i] = detail::convert_element<I>(positions[i]);
    }
  });
  return data;
}

}  // namespace ember::ndarray
