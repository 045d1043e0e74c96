#include "backends/flex/dim_last.h"

#include "backends/flex/copy.h"
#include "backends/flex/view_ops.h"

namespace ember::flex {

std::vector<int64_t> axes_moving_last(std::size_t rank, int64_t dim) {
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
    if (d != dim) axes.push_back(d);
  }
  axes.push_back(dim);
  return axes;
}

std::vector<int64_t> inverse_axes(const std::vector<int64_t>& axes) {
  std::vector<int64_t> inverse(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i)
    inverse[static_cast<std::size_t>(axes[i])] = static_cast<int64_t>(i);
  return inverse;
}

View rows_along(const View& x, int64_t dim) {
  return contiguous(permuted(x, axes_moving_last(x.shape.rank(), dim)));
}

}  // namespace ember::flex
