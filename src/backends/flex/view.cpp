#include "backends/flex/view.h"

#include <algorithm>
#include <utility>

#include "core/recycled.h"
#include "core/spares.h"
#include "core/thread_instance.h"

namespace ember::flex {
namespace {

/// Shapes and strides of dead flex buffers, whose memory the thread's next outputs reuse: a
/// fresh copy of each is a heap allocation, a visible part of an op on a tiny tensor.
class SpareDims {
 public:
  /// Keeps view's shape and strides while there is room (never allocates: runs in a destructor).
  void keep(View& view) noexcept {
    shapes_.keep(std::move(view.shape));
    strides_.keep(std::move(view.strides));
  }
  /// A copy of shape, in a kept shape's memory when there is one.
  Shape copy_shape(const Shape& shape) { return shapes_.copy(shape); }
  /// shape's row-major strides, in kept strides' memory when there are some.
  std::vector<int64_t> contiguous_strides(const Shape& shape) {
    std::vector<int64_t> strides = strides_.take();
    strides.resize(shape.rank());
    int64_t stride = 1;
    for (std::size_t i = shape.rank(); i-- > 0;) {
      strides[i] = stride;
      // On overflow the checked original throws its error.
      if (__builtin_mul_overflow(stride, std::max<int64_t>(shape[i], 1), &stride))
        return shape.contiguous_strides();
    }
    return strides;
  }

 private:
  static constexpr std::size_t kKept = 8;
  detail::Spares<Shape> shapes_{kKept};
  detail::Spares<std::vector<int64_t>> strides_{kKept};
};

/// A row-major view of meta over storage, its shape and strides in the thread's kept memory.
View kept_contiguous_view(std::shared_ptr<const Storage> storage, const ir::TensorMeta& meta) {
  SpareDims* spare = detail::thread_instance<SpareDims>();
  if (spare == nullptr) return View::contiguous(std::move(storage), meta.shape, meta.dtype);
  return View{std::move(storage), 0, spare->contiguous_strides(meta.shape),
              spare->copy_shape(meta.shape), meta.dtype};
}

}  // namespace

View View::contiguous(std::shared_ptr<const Storage> storage, Shape shape, DType dtype,
                      int64_t offset) {
  std::vector<int64_t> strides = shape.contiguous_strides();
  return View{std::move(storage), offset, std::move(strides), std::move(shape), dtype};
}

OutputTensor::OutputTensor(const ir::TensorMeta& meta)
    : OutputTensor(
          detail::make_recycled<Storage>(static_cast<std::size_t>(meta.shape.num_elements()) *
                                         dtype_size(meta.dtype)),
          meta) {}

OutputTensor::OutputTensor(std::shared_ptr<Storage> storage, const ir::TensorMeta& meta)
    : data_(storage->mutable_data()), view_(kept_contiguous_view(std::move(storage), meta)) {}

FlexBuffer::~FlexBuffer() {
  if (SpareDims* spare = detail::thread_instance<SpareDims>()) spare->keep(view);
}

}  // namespace ember::flex
