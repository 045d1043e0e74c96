// View: how a flex tensor sees its storage — an offset and one stride per dim (in elements) over
// a shared Storage. A stride is 0 on a broadcast (expanded) dim and negative on a flipped one, so
// permute, flip, expand, slice and most reshapes make a new View of the same Storage instead of
// moving data. Kernels read any View; they write only into an OutputTensor they allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/flex/storage.h"
#include "ember/dtype.h"
#include "ember/shape.h"
#include "ir/ops.h"

namespace ember::flex {

struct View {
  std::shared_ptr<const Storage> storage;
  int64_t offset = 0;            ///< Elements from the storage's start to element [0, ..., 0].
  std::vector<int64_t> strides;  ///< Elements between neighbours along each dim.
  Shape shape;
  DType dtype = DType::F32;

  /// A row-major view of shape starting offset elements into storage.
  static View contiguous(std::shared_ptr<const Storage> storage, Shape shape, DType dtype,
                         int64_t offset = 0);

  int64_t num_elements() const { return shape.num_elements(); }
  std::size_t element_size() const { return dtype_size(dtype); }
  /// Whether the elements lie row-major and densely from element [0, ..., 0] (strides of dims
  /// of size 1 do not matter; a view without elements is contiguous). Inline: the elementwise
  /// kernels ask it of every input.
  bool is_contiguous() const {
    // One walk over the dims, without num_elements() (a checked product) for the empty case.
    bool row_major = true;
    int64_t expected = 1;
    for (std::size_t d = shape.rank(); d-- > 0;) {
      if (shape[d] == 0) return true;
      if (shape[d] == 1) continue;
      row_major = row_major && strides[d] == expected;
      expected *= shape[d];
    }
    return row_major;
  }
  /// The bytes of element [0, ..., 0].
  const std::byte* bytes() const {
    return storage->data() + offset * static_cast<int64_t>(element_size());
  }
  /// Element [0, ..., 0] as T (T must be dtype's element type).
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes());
  }
  ir::TensorMeta meta() const { return {shape, dtype}; }
};

/// A kernel's input views: the operands' own views, by pointer. Note: not a span of copies, since
/// copying a view (its shape and strides, its storage's count) costs more than an op on a tiny
/// tensor.
class Views {
 public:
  /// Iterates the views, not the pointers.
  class Iterator {
   public:
    explicit Iterator(const View* const* at) : at_(at) {}
    const View& operator*() const { return **at_; }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    friend bool operator==(const Iterator&, const Iterator&) = default;

   private:
    const View* const* at_;
  };

  explicit Views(std::span<const View* const> views) : views_(views) {}

  std::size_t size() const { return views_.size(); }
  const View& operator[](std::size_t i) const { return *views_[i]; }
  Iterator begin() const { return Iterator(views_.data()); }
  Iterator end() const { return Iterator(views_.data() + views_.size()); }

 private:
  std::span<const View* const> views_;
};

/// A new contiguous tensor for a kernel to fill: write through data(), then take view(). Its
/// storage comes from the calling thread's current_allocator() (allocator.h).
class OutputTensor {
 public:
  explicit OutputTensor(const ir::TensorMeta& meta);

  std::byte* bytes() { return data_; }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(bytes());
  }
  const View& view() const& { return view_; }
  /// The view, moved out of a finished tensor: a kernel's result without a copy of its shape and
  /// strides (each a heap allocation, a visible part of an op on a tiny tensor).
  View view() && { return std::move(view_); }

 private:
  OutputTensor(std::shared_ptr<Storage> storage, const ir::TensorMeta& meta);

  /// The storage's bytes, writable; the view holds the storage (one owner: a second would cost
  /// an atomic increment and decrement per op).
  std::byte* data_;
  View view_;
};

/// The flex backend's buffer: one view. When it dies, the thread keeps its view's shape and
/// strides for the memory of its next OutputTensor's (view.cpp).
struct FlexBuffer final : backend::Buffer {
  /// Takes v by reference: each move of a view is a visible part of an op on a tiny tensor.
  explicit FlexBuffer(View&& v) : view(std::move(v)) {}
  ~FlexBuffer() override;
  FlexBuffer(const FlexBuffer&) = delete;
  FlexBuffer& operator=(const FlexBuffer&) = delete;
  View view;
};

}  // namespace ember::flex
