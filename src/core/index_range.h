// The smallest and largest value of an integer tensor, where the host knows them without asking
// the device: from the bytes of an upload, or from an arange's ends. An op whose indices' range
// lies inside the indexed dim then needs no check of the values on the device, and so no wait for
// them: a training step's token, position and label ids come from the host, and without this every
// embedding and cross-entropy stalled the host until a GPU or a remote server caught up (cuda's
// gather and scatter keep the range on their buffers; a tensor made from host data keeps it in its
// TensorImpl, for cross-entropy's check of its targets).
#pragma once

#include <cstdint>
#include <optional>

#include "ember/dtype.h"
#include "ember/tensor_data.h"

namespace ember::detail {

struct IndexRange {
  int64_t lowest = 0;
  int64_t highest = 0;
  /// Whether every value is an index into a dim of size elements.
  bool within(int64_t size) const { return lowest >= 0 && highest < size; }
};

/// data's range; nullopt for a float or Bool tensor, an empty one, or a value past int64.
std::optional<IndexRange> index_range_of(const TensorData& data);

/// The range of arange(start, ..., count values, step) stored as dtype: nullopt when an end does
/// not fit dtype (the stored values would wrap, out of the ends' order).
std::optional<IndexRange> arange_range(DType dtype, int64_t start, int64_t step, int64_t count);

}  // namespace ember::detail
