#include "core/index_range.h"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace ember::detail {

std::optional<IndexRange> index_range_of(const TensorData& data) {
  if (!is_int(data.dtype()) || data.shape().num_elements() == 0) return std::nullopt;
  return visit_dtype(data.dtype(), [&]<typename T>() -> std::optional<IndexRange> {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const auto values = data.as<T>();
      const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
      if constexpr (std::is_unsigned_v<T>) {
        if (*highest > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          return std::nullopt;
      }
      return IndexRange{static_cast<int64_t>(*lowest), static_cast<int64_t>(*highest)};
    } else {
      return std::nullopt;
    }
  });
}

std::optional<IndexRange> arange_range(DType dtype, int64_t start, int64_t step, int64_t count) {
  if (!is_int(dtype) || count <= 0) return std::nullopt;
  const int64_t last = start + (count - 1) * step;  // ir::infer keeps it inside int64
  const IndexRange range{std::min(start, last), std::max(start, last)};
  const bool fits = visit_dtype(dtype, [&]<typename T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      using Limits = std::numeric_limits<T>;
      return range.lowest >= static_cast<int64_t>(Limits::min()) &&
             (sizeof(T) == 8 || range.highest <= static_cast<int64_t>(Limits::max()));
    } else {
      return false;
    }
  });
  if (!fits) return std::nullopt;
  return range;
}

}  // namespace ember::detail
