// Materializing views: the copies between a strided View and contiguous bytes, used where a
// kernel needs dense data (the ndarray fallback, BLAS with a non-unit stride, reading back).
#pragma once

#include <cstddef>

#include "backends/flex/view.h"
#include "ember/tensor_data.h"

namespace ember::flex {

/// Copies x's elements, in row-major order of its shape, into dst (num_elements * element size
/// bytes). Large copies run on the thread pool.
void copy_to(const View& x, std::byte* dst);
/// x itself when it is contiguous, else a contiguous copy.
View contiguous(const View& x);
/// x's elements as host data.
TensorData to_tensor_data(const View& x);
/// A new contiguous view holding a copy of data.
View from_tensor_data(const TensorData& data);

}  // namespace ember::flex
