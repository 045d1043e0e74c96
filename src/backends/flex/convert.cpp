#include "backends/flex/convert.h"

#include <vector>

#include "backends/flex/kernels.h"
#include "backends/flex/strided_loop.h"
#include "backends/flex/thread_pool.h"

namespace ember::flex {
namespace {

/// Elements per chunk of a parallel conversion.
constexpr int64_t kConvertGrain = int64_t{1} << 15;

template <typename From, typename To>
void convert_elements(const View& x, To* dst) {
  const std::vector<int64_t> dst_strides = x.shape.contiguous_strides();
  const StridedLoop<2> loop(x.shape, {dst_strides, x.strides});
  const From* src = x.data<From>();
  const int64_t stride = loop.inner_stride(1);
  parallel_for(loop.size(), kConvertGrain, [&](int64_t begin, int64_t end) {
    loop.for_range(begin, end, [&](const StridedLoop<2>::Offsets& at, int64_t count) {
      for (int64_t j = 0; j < count; ++j)
        dst[at[0] + j] = detail::convert_element<To>(src[at[1] + j * stride]);
    });
  });
}

}  // namespace

View converted(const View& x, DType dtype) {
  OutputTensor out({x.shape, dtype});
  visit_dtype(x.dtype, [&]<typename From>() {
    visit_dtype(dtype, [&]<typename To>() { convert_elements<From>(x, out.data<To>()); });
  });
  return out.view();
}

std::optional<View> run(const ir::Cast& op, Views in, Outputs /*out*/) {
  return converted(in[0], op.dtype);
}

}  // namespace ember::flex
