// Moving one dim of a view last, and back: kernels that work along contiguous rows (softmax)
// take any dim this way, copying only when the moved view is not contiguous.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/flex/view.h"

namespace ember::flex {

/// The axes that move dim last, keeping the others in order (for permuted).
std::vector<int64_t> axes_moving_last(std::size_t rank, int64_t dim);
/// The inverse permutation of axes.
std::vector<int64_t> inverse_axes(const std::vector<int64_t>& axes);
/// x with dim moved last, contiguous.
View rows_along(const View& x, int64_t dim);

}  // namespace ember::flex
