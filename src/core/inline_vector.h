// InlineVector<T, N>: a vector whose first N elements live inside the object, on the heap only
// past that. Contiguous, so it converts to std::span like a std::vector. For the short lists an
// op passes between layers (its output metadata, its result buffers, its result tensors): one
// or two elements nearly always, where a std::vector's heap allocation is a visible part of an
// op on a tiny tensor.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace ember::detail {

template <typename T, std::size_t N>
class InlineVector {
  static_assert(N > 0, "an InlineVector holds at least one element inline");
  // Growing moves the elements without a way back: a throwing move could lose some.
  static_assert(std::is_nothrow_move_constructible_v<T>);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  InlineVector() noexcept = default;
  InlineVector(std::initializer_list<T> values) { append_copies(values.begin(), values.end()); }
  InlineVector(const InlineVector& other) { append_copies(other.begin(), other.end()); }
  InlineVector(InlineVector&& other) noexcept { take(other); }
  InlineVector& operator=(const InlineVector& other) {
    if (this != &other) {
      clear();
      append_copies(other.begin(), other.end());
    }
    return *this;
  }
  InlineVector& operator=(InlineVector&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  ~InlineVector() { reset(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }

  T* data() { return heap_ != nullptr ? heap_ : inline_data(); }
  const T* data() const { return heap_ != nullptr ? heap_ : inline_data(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  /// std::out_of_range past the end, like std::vector::at.
  T& at(std::size_t i) { return data()[checked(i)]; }
  const T& at(std::size_t i) const { return data()[checked(i)]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  /// Room for capacity elements without another allocation.
  void reserve(std::size_t capacity) {
    if (capacity > capacity_) relocate(allocate(capacity), capacity);
  }
  void push_back(const T& value) { emplace_back(value); }
  void push_back(T&& value) { emplace_back(std::move(value)); }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ < capacity_) {
      T* element = std::construct_at(data() + size_, std::forward<Args>(args)...);
      ++size_;
      return *element;
    }
    // Built in the new memory before the old elements move, so args may refer to one of them.
    const std::size_t capacity = capacity_ * 2;
    T* fresh = allocate(capacity);
    try {
      std::construct_at(fresh + size_, std::forward<Args>(args)...);
    } catch (...) {
      std::allocator<T>().deallocate(fresh, capacity);
      throw;
    }
    relocate(fresh, capacity);
    return data()[size_++];
  }
  friend bool operator==(const InlineVector& a, const InlineVector& b) {
    return std::ranges::equal(a, b);
  }

  /// Destroys every element; the memory stays for the next ones.
  void clear() noexcept {
    std::destroy(begin(), end());
    size_ = 0;
  }

 private:
  T* inline_data() { return std::launder(reinterpret_cast<T*>(inline_)); }
  const T* inline_data() const { return std::launder(reinterpret_cast<const T*>(inline_)); }

  std::size_t checked(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("InlineVector::at: index past the end");
    return i;
  }
  static T* allocate(std::size_t capacity) { return std::allocator<T>().allocate(capacity); }

  template <typename It>
  void append_copies(It first, It last) {
    reserve(static_cast<std::size_t>(last - first));
    for (; first != last; ++first)
      emplace_back(*first);
  }
  /// Moves the elements into fresh (capacity elements, from allocate) and makes it the storage.
  void relocate(T* fresh, std::size_t capacity) noexcept {
    std::uninitialized_move(begin(), end(), fresh);
    std::destroy(begin(), end());
    free_heap();
    heap_ = fresh;
    capacity_ = capacity;
  }
  /// Takes other's elements (its heap memory, or moves of its inline ones), leaving it empty.
  void take(InlineVector& other) noexcept {
    if (other.heap_ != nullptr) {
      heap_ = std::exchange(other.heap_, nullptr);
      capacity_ = std::exchange(other.capacity_, N);
      size_ = std::exchange(other.size_, 0);
      return;
    }
    std::uninitialized_move(other.begin(), other.end(), inline_data());
    size_ = other.size_;
    other.clear();
  }
  /// Empty, with the inline storage only.
  void reset() noexcept {
    clear();
    free_heap();
    heap_ = nullptr;
    capacity_ = N;
  }
  void free_heap() noexcept {
    if (heap_ != nullptr) std::allocator<T>().deallocate(heap_, capacity_);
  }

  alignas(T) std::byte inline_[N * sizeof(T)];
  T* heap_ = nullptr;  ///< The elements when they outgrew the inline storage.
  std::size_t size_ = 0;
  std::size_t capacity_ = N;
};

}  // namespace ember::detail
