// Zero-copy transformations of a View: each returns a view of the same storage with a new
// offset, strides and shape. Arguments satisfy the matching ir rule (checked by ir::infer).
#pragma once

#include <optional>
#include <span>

#include "backends/flex/view.h"
#include "ir/ops.h"

namespace ember::flex {

/// Output dim i is x's dim axes[i].
View permuted(const View& x, std::span<const int64_t> axes);
/// Each listed axis walks backwards: the offset moves to its last element, its stride flips.
View flipped(const View& x, std::span<const int64_t> axes);
/// x broadcast to shape (NumPy rules: dims aligned on the right, missing or size-1 dims get
/// stride 0). Expand is the same-rank case.
View broadcast_to(const View& x, const Shape& shape);
/// Every step-th element of each range.
View sliced(const View& x, std::span<const ir::SliceRange> ranges);
/// x with shape, when its strides can express it (always for a contiguous x; also for splitting
/// or merging dims that are laid out together, as PyTorch's view); nullopt otherwise.
std::optional<View> reshaped(const View& x, const Shape& shape);

}  // namespace ember::flex
