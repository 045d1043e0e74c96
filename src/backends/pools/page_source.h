// PageSource: where the sliced pools (sliced_pool.h, memory_manager.h) get their pages and
// persistent blocks: host memory from the OS (host_pages, the cpu backend's), or a device's (the
// cuda backend's, cuda/device_pages.h). The pools only keep addresses; they never touch the bytes,
// so the same bookkeeping serves memory the host cannot read.
#pragma once

#include <cstddef>
#include <memory>

namespace ember::pools {

class PageSource {
 public:
  virtual ~PageSource() = default;
  /// bytes of memory (bytes >= 1) at an address aligned to at least alignment. Throws
  /// std::bad_alloc when the memory is not there (the pools then give their free pages back and
  /// try once more), ExecutionError when the device fails otherwise.
  virtual std::byte* take(std::size_t bytes, std::size_t alignment) = 0;
  /// Gives back what take(bytes, alignment) returned. Must not throw.
  virtual void give_back(std::byte* block, std::size_t bytes, std::size_t alignment) noexcept = 0;
  /// Whether the memory is the host's: AddressSanitizer may then poison what no tensor holds.
  virtual bool is_host_memory() const = 0;
};

/// Host memory from the OS (aligned operator new), blocks of 4 MiB or more on a 2 MiB boundary
/// and offered for transparent huge pages. One shared instance.
const std::shared_ptr<PageSource>& host_pages();

}  // namespace ember::pools
