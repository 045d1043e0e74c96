// The pieces of the .npy format shared by the .npy and .npz readers and writers
// (include/ember/record/numpy.h describes the format).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ember/dtype.h"
#include "ember/shape.h"
#include "ember/tensor_data.h"
#include "failure.h"

namespace ember::record::detail {

/// What a .npy header dict says.
struct NpyHeader {
  DType dtype = DType::F32;
  bool big_endian = false;  ///< descr began with '>'
  bool fortran_order = false;
  Shape shape;
};

/// Parses the header dict text ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// followed by padding), calling fail with the field at fault. Does not check the shape's size.
NpyHeader parse_npy_header(std::string_view text, const Failure& fail);

/// The little-endian descr numpy writes for dtype ('<f4', '|b1', ...); nullopt for BF16.
std::optional<std::string_view> npy_descr(DType dtype);

/// Parses a .npy file (see deserialize_npy), calling fail with the field at fault.
TensorData deserialize_npy_with(std::span<const std::byte> file, const Failure& fail);

/// The .npy file numpy.save writes for data; fail is called for a BF16 tensor.
std::vector<std::byte> serialize_npy_with(const TensorData& data, const Failure& fail);

}  // namespace ember::record::detail
