#include "codegen/layout_views.h"

#include <cstddef>
#include <variant>

#include "codegen/kernel_dims.h"

namespace ember::codegen {

std::optional<LayoutView> layout_view(const ir::Op& op, const Shape& input, const Shape& output) {
  if (output.rank() > kProgramMaxRank) return std::nullopt;
  const std::vector<int64_t> contiguous = input.contiguous_strides();
  LayoutView view;
  if (const auto* permute = std::get_if<ir::Permute>(&op)) {
    for (const int64_t axis : permute->axes)
      view.strides.push_back(contiguous[static_cast<std::size_t>(axis)]);
    return view;
  }
  if (const auto* flip = std::get_if<ir::Flip>(&op)) {
    view.strides = contiguous;
    if (input.num_elements() > 0) {
      for (const int64_t axis : flip->axes) {
        const auto a = static_cast<std::size_t>(axis);
        view.offset += (input[a] - 1) * view.strides[a];  // the last element along it comes first
        view.strides[a] = -view.strides[a];
      }
    }
    return view;
  }
  if (std::holds_alternative<ir::Expand>(op)) {
    const KernelDims all = broadcast_strides(input, output);
    view.strides.assign(all.d, all.d + output.rank());
    return view;
  }
  if (const auto* slice = std::get_if<ir::Slice>(&op)) {
    view.strides = contiguous;
    for (std::size_t d = 0; d < view.strides.size(); ++d) {
      view.offset += slice->ranges[d].start * view.strides[d];
      view.strides[d] *= slice->ranges[d].step;
    }
    return view;
  }
  return std::nullopt;
}

}  // namespace ember::codegen
