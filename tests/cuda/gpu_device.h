// The GPU of the cuda tests that need one: cuda:0 where Device::enumerate finds it, and a skip
// that says why where it does not (every case still compiles and starts without a GPU).
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "ember/device.h"
#include "ember/devices.h"

namespace ember::test {

/// The first CUDA device; nullopt on a machine without a GPU (or without a driver).
inline std::optional<Device> first_cuda_device() {
  const Devices gpus = Device::enumerate(DeviceType::Cuda);
  if (gpus.empty()) return std::nullopt;
  return gpus[0];
}

}  // namespace ember::test

/// Declares device (a std::optional<Device>) as the first GPU, or skips the test saying why.
#define EMBER_SKIP_WITHOUT_GPU(device)                                                           \
  const std::optional<Device> device = ::ember::test::first_cuda_device();                       \
  if (!device)                                                                                   \
  GTEST_SKIP() << "no CUDA GPU on this machine (Device::enumerate(DeviceType::Cuda) is empty): " \
                  "the GPU cases run on a machine with one (docs/backends/cuda.md)"
