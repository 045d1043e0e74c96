// make_recycled<T>(args...): std::make_shared<T>(args...), its memory (the T with its reference
// counts) from the blocks of earlier ones of its size that this thread freed. Each op makes a few
// such objects (its tensor, its buffers), whose heap allocation and release are a visible part of
// an op on a tiny tensor; taking a kept block costs a fraction of that. The thread keeps a few
// blocks of each size and frees the rest; a block freed on another thread joins that thread's.
// Note: the blocks are a list threaded through the free blocks themselves, not a ThreadKept
// Spares (core/thread_kept.h): no caller nests, and the lending and the vector would cost about
// as much as the allocation saved.
#pragma once

#include <sanitizer/asan_interface.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace ember::detail {

/// The calling thread's free blocks of Size bytes aligned to Align.
template <std::size_t Size, std::size_t Align>
class BlockBin {
 public:
  /// A block: a kept one when there is one, else a new one.
  static void* take() {
    if (!closed()) {
      Bin& bin = thread_bin();
      if (bin.head != nullptr) {
        --bin.count;
        return pop(bin.head);
      }
    }
    return ::operator new (Size, std::align_val_t{Align});
  }
  /// Keeps block (from take) while there is room, else frees it.
  static void give(void* block) noexcept {
    if (!closed()) {
      Bin& bin = thread_bin();
      if (bin.count < kKept) {
        ++bin.count;
        bin.head = ::new (block) Node{bin.head};
        // Under AddressSanitizer a use of the freed object then fails as with the heap's.
        ASAN_POISON_MEMORY_REGION(block, Size);
        return;
      }
    }
    ::operator delete (block, std::align_val_t{Align});
  }

 private:
  /// Blocks kept per thread and size: an op frees its objects before the next op makes its own,
  /// so a few suffice.
  static constexpr std::size_t kKept = 16;

  struct Node {
    Node* next;
  };
  static_assert(Size >= sizeof(Node) && Align >= alignof(Node));

  struct Bin {
    Node* head = nullptr;
    std::size_t count = 0;
    ~Bin() {
      closed() = true;
      while (head != nullptr)
        ::operator delete (pop(head), std::align_val_t{Align});
    }
  };
  /// Takes the first node off the list at head.
  static Node* pop(Node*& head) noexcept {
    Node* node = head;
    ASAN_UNPOISON_MEMORY_REGION(node, Size);
    head = node->next;
    return node;
  }
  static Bin& thread_bin() {
    thread_local Bin bin;
    return bin;
  }
  /// Whether the thread's bin is destroyed (thread exit): blocks then come from and go to the
  /// heap. Trivially destructible, so that it still reads true after.
  static bool& closed() {
    thread_local bool gone = false;
    return gone;
  }
};

/// The allocator of make_recycled: single objects from the thread's bin of their size.
template <typename T>
class RecyclingAllocator {
 public:
  using value_type = T;

  RecyclingAllocator() = default;
  /// Rebinding (allocate_shared allocates its control block through one); implicit, as the
  /// allocator requirements ask.
  template <typename U>
  RecyclingAllocator(const RecyclingAllocator<U>& /*other*/) noexcept {}

  T* allocate(std::size_t n) {
    if (n != 1) return std::allocator<T>().allocate(n);
    return static_cast<T*>(Bin::take());
  }
  void deallocate(T* object, std::size_t n) noexcept {
    if (n != 1) return std::allocator<T>().deallocate(object, n);
    Bin::give(object);
  }

  template <typename U>
  friend bool operator==(const RecyclingAllocator& /*a*/, const RecyclingAllocator<U>& /*b*/) {
    return true;  // stateless: any one frees what another allocated
  }

 private:
  /// Types of one size and alignment share their blocks.
  using Bin = BlockBin<sizeof(T), std::max(alignof(T), alignof(void*))>;
};

/// std::make_shared<T>(args...) in a recycled block.
template <typename T, typename... Args>
std::shared_ptr<T> make_recycled(Args&&... args) {
  return std::allocate_shared<T>(RecyclingAllocator<std::remove_cv_t<T>>(),
                                 std::forward<Args>(args)...);
}

}  // namespace ember::detail
