#include "backends/flex/storage.h"

#include <algorithm>
#include <new>

namespace ember::flex {

Storage::Storage(std::size_t bytes)
    // One byte at least, so that an empty tensor still owns a distinct allocation.
    : data_(static_cast<std::byte*>(
          ::operator new (std::max<std::size_t>(bytes, 1), std::align_val_t{kAlignment}))),
      size_(bytes) {}

void Storage::AlignedFree::operator()(std::byte* p) const {
  ::operator delete (p, std::align_val_t{kAlignment});
}

}  // namespace ember::flex
