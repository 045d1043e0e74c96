#include "backends/flex/storage.h"

#include <utility>

namespace ember::flex {

Storage::Storage(std::size_t bytes) : Storage(bytes, current_allocator()) {}

Storage::Storage(std::size_t bytes, std::shared_ptr<Allocator> allocator)
    : allocator_(std::move(allocator)), data_(allocator_->allocate(bytes)), size_(bytes) {}

Storage::Storage(std::byte* data, std::size_t bytes, std::shared_ptr<void> owner)
    : owner_(std::move(owner)), data_(data), size_(bytes) {}

Storage::~Storage() {
  if (allocator_) allocator_->deallocate(data_, size_);
}

}  // namespace ember::flex
