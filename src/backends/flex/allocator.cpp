#include "backends/flex/allocator.h"

#include <algorithm>
#include <new>
#include <string>

#include "ember/error.h"

namespace ember::flex {
namespace {

class NewDeleteAllocator final : public Allocator {
 public:
  std::byte* allocate(std::size_t bytes) override {
    // One byte at least, so that an empty tensor still owns a distinct allocation.
    void* data = ::operator new (std::max<std::size_t>(bytes, 1), std::align_val_t{kAlignment},
                                 std::nothrow);
    if (data == nullptr) {
      throw ExecutionError("[flex] out of memory: cannot allocate " + std::to_string(bytes) +
                           " bytes (flex keeps no memory pool: every tensor comes from the "
                           "system heap)");
    }
    return static_cast<std::byte*>(data);
  }
  void deallocate(std::byte* data, std::size_t /*bytes*/) noexcept override {
    ::operator delete (data, std::align_val_t{kAlignment});
  }
};

/// The innermost scope's allocator on this thread; nullptr outside every scope.
thread_local const std::shared_ptr<Allocator>* current_scope_allocator = nullptr;

}  // namespace

const std::shared_ptr<Allocator>& new_delete_allocator() {
  static const std::shared_ptr<Allocator> allocator = std::make_shared<NewDeleteAllocator>();
  return allocator;
}

const std::shared_ptr<Allocator>& current_allocator() {
  return current_scope_allocator != nullptr ? *current_scope_allocator : new_delete_allocator();
}

AllocatorScope::AllocatorScope(const std::shared_ptr<Allocator>& allocator)
    : previous_(current_scope_allocator) {
  current_scope_allocator = &allocator;
}

AllocatorScope::~AllocatorScope() {
  current_scope_allocator = previous_;
}

}  // namespace ember::flex
