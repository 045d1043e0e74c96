// dnnl_context.h: the per-thread engine, and the probe that decides which reduced dtypes run
// natively.
#ifdef EMBER_WITH_DNNL

#include "backends/flex/dnnl_context.h"

#include <cstring>

#include "backends/flex/native_precision.h"
#include "backends/flex/one_openmp_thread.h"

namespace ember::flex {
namespace {

/// Whether oneDNN offers a non-reference matmul of dtype (a 64^3 product, plain layouts).
bool has_native_matmul(DType dtype) {
  const OneOpenMpThread one_thread;
  using dnnl::memory;
  const memory::desc square({64, 64}, dnnl_type(dtype), memory::format_tag::ab);
  try {
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(square, square, square),
                                          dnnl_context().engine);
    return !is_reference_impl(pd.impl_info_str());
  } catch (const dnnl::error&) {  // no implementation at all
    return false;
  }
}

}  // namespace

DnnlContext& dnnl_context() {
  thread_local DnnlContext context;
  return context;
}

dnnl::memory DnnlContext::scratchpad(const dnnl::memory::desc& desc) {
  const std::size_t bytes = desc.get_size();
  if (bytes > scratch_bytes_) {
    scratch_.reset();  // the old one first: both at once may not fit
    scratch_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
    scratch_bytes_ = bytes;
  }
  return {desc, engine, scratch_.get()};
}

dnnl::memory::data_type dnnl_type(DType dtype) {
  using type = dnnl::memory::data_type;
  if (dtype == DType::BF16) return type::bf16;
  if (dtype == DType::F16) return type::f16;
  return type::f32;
}

bool dnnl_native(DType dtype) {
  // The CPU is asked first: oneDNN is probed only where its kernels would be wanted.
  const auto decide = [](DType reduced) {
    return wants_native_kernels(reduced, cpu_features()) && has_native_matmul(reduced);
  };
  static const bool bf16 = decide(DType::BF16);
  static const bool f16 = decide(DType::F16);
  if (dtype == DType::BF16) return bf16;
  if (dtype == DType::F16) return f16;
  return false;
}

bool is_reference_impl(const char* impl_info) {
  return std::strncmp(impl_info, "ref", 3) == 0;
}

}  // namespace ember::flex

#endif
