#include "core/host_blocks.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace ember::detail {
namespace {

/// A huge page on x86-64.
constexpr std::size_t kHugePage = std::size_t{2} << 20;
/// Blocks of this size or more (the medium and large pools' pages, a large download) start on a
/// huge-page boundary and are offered for transparent huge pages. The small pool's 2 MiB pages are
/// not: backed whole at their first touch, they raised the CNN training's peak memory by up to a
/// fifth, and the tensors they hold (256 KiB at most) are too small to stream.
constexpr std::size_t kHugePagesFrom = std::size_t{4} << 20;

std::align_val_t block_alignment(std::size_t bytes, std::size_t alignment) {
  return std::align_val_t{bytes >= kHugePagesFrom ? std::max(kHugePage, alignment) : alignment};
}

/// Asks for transparent huge pages where the kernel gives them only on request (THP "madvise",
/// Debian's default). A tensor streamed from memory then crosses no 4 KiB page boundaries, at which
/// the hardware prefetchers stop: on a Zen 4 VM a sum along the rows of a 64 MiB tensor
/// ran 1.2-1.3x as fast (docs/benchmarks.md). And a fresh block costs one page fault per 2 MiB
/// instead of 512: filling a fresh 64 MiB block took 39 ms on 4 KiB pages, 10 ms on huge pages and
/// 6 ms reused (memcpy, on the 2-core VM of bench/results/remote.md). Advice only: a kernel without
/// THP ignores it.
void advise_huge_pages(std::byte* base, std::size_t bytes) {
  if (bytes >= kHugePagesFrom) madvise(base, bytes, MADV_HUGEPAGE);
}

}  // namespace

std::byte* allocate_host_block(std::size_t bytes, std::size_t alignment) {
  auto* block = static_cast<std::byte*>(::operator new(bytes, block_alignment(bytes, alignment)));
  advise_huge_pages(block, bytes);
  return block;
}

void free_host_block(std::byte* block, std::size_t bytes, std::size_t alignment) noexcept {
  ::operator delete(block, block_alignment(bytes, alignment));
}

}  // namespace ember::detail
