// Blocks of host memory for tensors' bytes: a large block starts on a huge-page boundary and is
// offered for transparent huge pages. What the cpu backend's pools take their pages from, and where
// an uninitialised TensorData (a download's destination) lies.
#pragma once

#include <cstddef>

namespace ember::detail {

/// bytes uninitialised bytes (bytes >= 1) aligned to alignment; blocks of 4 MiB or more start on a
/// 2 MiB boundary and are offered for transparent huge pages. std::bad_alloc when the memory is
/// not there.
std::byte* allocate_host_block(std::size_t bytes, std::size_t alignment);
/// Frees what allocate_host_block(bytes, alignment) returned.
void free_host_block(std::byte* block, std::size_t bytes, std::size_t alignment) noexcept;

}  // namespace ember::detail
