// KernelRunner: what every kernel class of a shader backend holds, once: the device's limits,
// the backend's kernel cache (which compiles a kernel's text on first use) and its command stream
// (which records the dispatches), with the one call that records a kernel of text. Each backend
// names its own (vulkan/kernel_runner.h, wgpu/kernel_runner.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "backends/shader/device_limits.h"

namespace ember::shader {

/// scratch(bytes, &range) gives a device buffer of bytes (range: where it lies), held while the
/// pointer it returns lives: what a kernel's passes hand each other (ShaderBackend::scratch).
template <typename Range>
using Scratch = std::function<std::shared_ptr<const void>(uint64_t, Range*)>;

/// Cache: the backend's KernelCache; Stream: its CommandStream; RangeT: the slice of a device
/// buffer a tensor lies in. Copies share the cache and the stream (which outlive them).
template <typename Cache, typename Stream, typename RangeT>
class KernelRunner {
 public:
  /// The slice of a device buffer a tensor lies in (the kernel class templates bind these).
  using Range = RangeT;

  KernelRunner(const DeviceLimits& limits, Cache& kernels, Stream& stream)
      : limits_(limits), kernels_(&kernels), stream_(&stream) {}

  /// The device's limits, which the kernel classes check before they take a case.
  const DeviceLimits& limits() const { return limits_; }
  /// The stream the dispatches are recorded into (for the commands that are no kernel's).
  Stream& stream() const { return *stream_; }

  /// The kernel of text, made on first use, which binds tensors storage buffers after its
  /// parameter block. vulkan's cache needs that count for the kernel's descriptor layout; wgpu's
  /// derives the layout from the text.
  const auto& kernel(const std::string& text, std::size_t tensors) const {
    if constexpr (requires { kernels_->kernel(text, uint32_t{0}); })
      return kernels_->kernel(text, static_cast<uint32_t>(tensors));
    else
      return kernels_->kernel(text);
  }

  /// Records the kernel of text over groups_x x groups_y x groups_z workgroups, words its
  /// parameter block (binding 0), tensors bound in order after it.
  void dispatch(const std::string& text, std::span<const std::byte> words,
                std::span<const Range> tensors, uint32_t groups_x, uint32_t groups_y = 1,
                uint32_t groups_z = 1) const {
    stream_->dispatch(kernel(text, tensors.size()), words, tensors, groups_x, groups_y, groups_z);
  }
  /// dispatch over groups_x workgroups as a callable (text, words, tensors, groups_x): what the
  /// passes' record functions (shader/*_passes.h) take.
  auto dispatcher() const {
    return [this](const std::string& text, std::span<const std::byte> words,
                  std::span<const Range> tensors,
                  uint32_t groups_x) { dispatch(text, words, tensors, groups_x); };
  }

 private:
  DeviceLimits limits_;
  Cache* kernels_;
  Stream* stream_;
};

}  // namespace ember::shader
