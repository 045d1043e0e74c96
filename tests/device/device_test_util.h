// Helpers shared by the device tests.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "ember/dispatch_device.h"

namespace ember::test {

/// Runs f, which must throw E, and returns the message (adding a test failure otherwise).
template <typename E, typename F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "did not throw";
  return "";
}

inline ::testing::AssertionResult contains(std::string_view text, std::string_view part) {
  if (text.find(part) != std::string_view::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

/// One descriptor of every DispatchDevice alternative, with non-default fields where it has any.
inline std::vector<DispatchDevice> sample_descriptors() {
  return {CpuDevice{},
          CudaDevice{3},
          RocmDevice{1},
          WgpuDevice{},
          WgpuDevice{WgpuDevice::Api::Vulkan, DeviceKind::integrated_gpu(2)},
          WgpuDevice{WgpuDevice::Api::Metal, DeviceKind::discrete_gpu(1)},
          WgpuDevice{WgpuDevice::Api::WebGpu, DeviceKind::virtual_gpu(0)},
          WgpuDevice{WgpuDevice::Api::Wgpu, DeviceKind::cpu()},
          FlexDevice{},
          NdArrayDevice{},
          LibTorchDevice{},
          LibTorchDevice{LibTorchDevice::Target::Cuda, 1},
          LibTorchDevice{LibTorchDevice::Target::Mps, 0},
          LibTorchDevice{LibTorchDevice::Target::Vulkan, 0},
          RemoteDevice{"example.org:8080", 2, {}},
          CaptureDevice{}};
}

}  // namespace ember::test
