// The column matrices of a convolution computed as GEMM (im2col / col2im), for 1 to 3 spatial
// dims (padded to 3 with leading dims of size 1).
//
// Along each spatial dim, position q of the small side meets position
//   q * stride - padding + k * dilation
// of the large side through kernel position k. For a convolution the large side is the input
// and the small side the output; for a transposed one (the adjoint) it is the other way round.
// Columns of a tensor [channels, *large] are the matrix [channels * kernel volume, small volume]
// whose row (c, k) holds, at column q, the element of channel c that q meets through k (0 where
// that falls in the padding).
#pragma once

#include <array>
#include <cstdint>

namespace ember::flex {

struct WindowDim {
  int64_t large = 1;
  int64_t small = 1;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t padding = 0;
  int64_t dilation = 1;
};

struct Windows {
  std::array<WindowDim, 3> dims;

  int64_t large_volume() const;
  int64_t small_volume() const;
  int64_t kernel_volume() const;
  /// Whether the columns of a tensor are the tensor itself (1x1 kernel, stride 1, no padding).
  bool is_identity() const;
};

/// Writes the columns of src [channels, *large] into columns [channels * K, small volume].
template <typename T>
void image_to_columns(const Windows& w, const T* src, int64_t channels, T* columns);
/// The adjoint: adds each column entry into the element of dst [channels, *large] it was read
/// from (entries meeting padding are dropped).
template <typename T>
void add_columns_to_image(const Windows& w, const T* columns, int64_t channels, T* dst);

}  // namespace ember::flex
