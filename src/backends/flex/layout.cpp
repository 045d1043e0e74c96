// Layout ops as views: permute, flip, expand and slice never move data; reshape moves it only
// when the input's strides cannot express the new shape (then once, into a contiguous copy).
#include "backends/flex/copy.h"
#include "backends/flex/kernels.h"
#include "backends/flex/view_ops.h"

namespace ember::flex {

std::optional<View> run(const ir::Reshape& op, Views in, Outputs /*out*/) {
  if (std::optional<View> view = reshaped(in[0], op.shape)) return view;
  return reshaped(contiguous(in[0]), op.shape);
}

std::optional<View> run(const ir::Permute& op, Views in, Outputs /*out*/) {
  return permuted(in[0], op.axes);
}

std::optional<View> run(const ir::Flip& op, Views in, Outputs /*out*/) {
  return flipped(in[0], op.axes);
}

std::optional<View> run(const ir::Expand& op, Views in, Outputs /*out*/) {
  return broadcast_to(in[0], op.shape);
}

std::optional<View> run(const ir::Slice& op, Views in, Outputs /*out*/) {
  return sliced(in[0], op.ranges);
}

}  // namespace ember::flex
