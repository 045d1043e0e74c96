// What flex's oneDNN callers share (dnnl_conv.cpp, dnnl_matmul.cpp): the calling thread's engine
// and stream, a per-thread cache of primitives by shape, and which reduced-precision dtypes
// oneDNN runs natively on this CPU. Only built with oneDNN (EMBER_WITH_DNNL).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "ember/dtype.h"

namespace ember::flex {

/// The engine and stream of the calling thread, and its primitives' scratchpad.
struct DnnlContext {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};

  /// A scratchpad of desc's size for a primitive made with scratchpad_mode::user, in memory the
  /// thread keeps (grown, never shrunk). Note: oneDNN's own scratchpads are allocated on each
  /// execution; a bf16 matmul's (its packed weights) is megabytes, which glibc took from and gave
  /// back to the OS every step, faulting in fresh pages each time: 17% of an autocast MLP step.
  dnnl::memory scratchpad(const dnnl::memory::desc& desc);

 private:
  std::unique_ptr<std::byte[]> scratch_;
  std::size_t scratch_bytes_ = 0;
};
DnnlContext& dnnl_context();

/// oneDNN's element type of a float dtype (f32, bf16 or f16).
dnnl::memory::data_type dnnl_type(DType dtype);

/// Whether oneDNN computes dtype (bf16 or f16) products natively here: the CPU has the instructions
/// (wants_native_kernels, native_precision.h: AVX512-BF16 for bf16, AVX512-FP16 for f16) and this
/// oneDNN has kernels for them. Decided once, by creating a small matmul primitive and reading its
/// implementation's name. False for every other dtype.
bool dnnl_native(DType dtype);

/// Whether a primitive's implementation (impl_info_str) is one of oneDNN's reference loops, which
/// run reduced precision far slower than converting to f32.
bool is_reference_impl(const char* impl_info);

/// The calling thread's cached value of key, made by make() (returning nullopt when oneDNN has
/// no implementation, remembered too) on first use; nullptr for such a key. Bounded: a program
/// that uses ever new shapes starts over instead of growing.
template <typename Made, typename Make>
const Made* dnnl_cached(std::vector<int64_t> key, Make&& make) {
  constexpr std::size_t kCapacity = 256;
  thread_local std::map<std::vector<int64_t>, std::optional<Made>> cache;
  if (auto it = cache.find(key); it != cache.end()) return it->second ? &*it->second : nullptr;
  if (cache.size() >= kCapacity) cache.clear();
  std::optional<Made> made = make();
  const auto& entry = cache.emplace(std::move(key), std::move(made)).first->second;
  return entry ? &*entry : nullptr;
}

}  // namespace ember::flex
