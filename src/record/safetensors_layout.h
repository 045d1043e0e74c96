// How save_safetensors lays a record out: the bytes before the tensors, then each tensor's bytes
// in the order the Python package writes them.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "ember/record/safetensors.h"

namespace ember::record::detail {

struct SafetensorsLayout {
  /// The 8-byte header size and the padded JSON header.
  std::vector<std::byte> head;
  /// The tensors' bytes (views into the record), in file order.
  std::vector<std::span<const std::byte>> tensors;

  /// head, then the tensors: the file, piece by piece.
  std::vector<std::span<const std::byte>> pieces() const;
};

/// The layout of record (which must outlive it). InvalidArgument "[save_safetensors] ..." as
/// serialize_safetensors says.
SafetensorsLayout layout_safetensors(const Record& record);

}  // namespace ember::record::detail
