#include "backends/flex/copy.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/flex/strided_loop.h"
#include "backends/flex/thread_pool.h"

namespace ember::flex {
namespace {

/// Elements per chunk of a parallel copy: enough to amortize waking a thread.
constexpr int64_t kCopyGrain = int64_t{1} << 16;

/// One run of a strided copy, moving elements as the unsigned integer type of their size.
template <typename Word>
void copy_run(const std::byte* src, int64_t src_stride, std::byte* dst, int64_t count) {
  if (src_stride == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(count) * sizeof(Word));
    return;
  }
  for (int64_t j = 0; j < count; ++j) {
    Word w;
    std::memcpy(&w, src + j * src_stride * static_cast<int64_t>(sizeof(Word)), sizeof(Word));
    std::memcpy(dst + j * static_cast<int64_t>(sizeof(Word)), &w, sizeof(Word));
  }
}

template <typename Word>
void copy_words(const View& x, std::byte* dst) {
  const std::vector<int64_t> dst_strides = x.shape.contiguous_strides();
  const StridedLoop<2> loop(x.shape, {dst_strides, x.strides});
  const std::byte* src = x.bytes();
  const int64_t stride = loop.inner_stride(1);
  parallel_for(loop.size(), kCopyGrain, [&](int64_t begin, int64_t end) {
    loop.for_range(begin, end, [&](const StridedLoop<2>::Offsets& at, int64_t count) {
      copy_run<Word>(src + at[1] * static_cast<int64_t>(sizeof(Word)), stride,
                     dst + at[0] * static_cast<int64_t>(sizeof(Word)), count);
    });
  });
}

}  // namespace

void copy_to(const View& x, std::byte* dst) {
  switch (x.element_size()) {
    case 1:
      return copy_words<uint8_t>(x, dst);
    case 2:
      return copy_words<uint16_t>(x, dst);
    case 4:
      return copy_words<uint32_t>(x, dst);
    default:
      return copy_words<uint64_t>(x, dst);
  }
}

View contiguous(const View& x) {
  if (x.is_contiguous()) return x;
  OutputTensor out(x.meta());
  copy_to(x, out.bytes());
  return out.view();
}

TensorData to_tensor_data(const View& x) {
  std::vector<std::byte> bytes(static_cast<std::size_t>(x.num_elements()) * x.element_size());
  copy_to(x, bytes.data());
  return TensorData(std::move(bytes), x.shape, x.dtype);
}

View from_tensor_data(const TensorData& data) {
  OutputTensor out({data.shape(), data.dtype()});
  const auto bytes = data.bytes();
  if (!bytes.empty()) std::memcpy(out.bytes(), bytes.data(), bytes.size());
  return out.view();
}

}  // namespace ember::flex
