#include "backends/flex/view.h"

#include <algorithm>
#include <utility>

#include "core/recycled.h"
#include "core/recycled_shapes.h"
#include "core/spares.h"
#include "core/thread_instance.h"

namespace ember::flex {
namespace {

/// Strides of dead flex buffers, whose memory the thread's next outputs reuse (their shapes go to
/// the thread's recycled shapes, core/recycled_shapes.h): a fresh copy is a heap allocation, a
/// visible part of an op on a tiny tensor.
class SpareStrides {
 public:
  /// Keeps strides while there is room (never allocates: runs in a destructor).
  void keep(std::vector<int64_t>&& strides) noexcept { strides_.keep(std::move(strides)); }
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
  detail::Spares<std::vector<int64_t>> strides_{kKept};
};

/// A row-major view of meta over storage, its shape and strides in the thread's kept memory.
View kept_contiguous_view(std::shared_ptr<const Storage> storage, const ir::TensorMeta& meta) {
  SpareStrides* spare = detail::thread_instance<SpareStrides>();
  if (spare == nullptr) return View::contiguous(std::move(storage), meta.shape, meta.dtype);
  return View{std::move(storage), 0, spare->contiguous_strides(meta.shape),
              detail::recycled_copy(meta.shape), meta.dtype};
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
  detail::recycle(std::move(view.shape));
  if (SpareStrides* spare = detail::thread_instance<SpareStrides>())
    spare->keep(std::move(view.strides));
}

}  // namespace ember::flex
