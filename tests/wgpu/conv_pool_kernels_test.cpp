// The wgpu device's convolution and pooling kernels against ndarray (the checks shared with
// vulkan, tests/support/conv_pool_checks.h), with either convolution kernel; f32 only on the
// kernels (WGSL has no f64).
#include <gtest/gtest.h>

#include "ember/device.h"
#include "ember/devices.h"
#include "support/conv_pool_checks.h"

namespace ember::test {
namespace {

TEST(WgpuConvPoolKernels, MatchNdarrayAndRunOnTheDeviceWhereTheyTakeTheCase) {
  const Devices devices = Device::enumerate(DeviceType::Wgpu);
  if (devices.empty()) GTEST_SKIP() << "no WebGPU adapter on this machine (scripts/install-deps)";
  expect_conv_pool_kernels_match_ndarray(devices[0], false);
}

TEST(WgpuConvPoolKernels, TheTiledConvolutionKernelMatchesNdarrayToo) {
  if (Device::enumerate(DeviceType::Wgpu).empty())
    GTEST_SKIP() << "no WebGPU adapter on this machine (scripts/install-deps)";
  expect_tiled_conv_kernel_matches_ndarray(DeviceType::Wgpu, false);
}

}  // namespace
}  // namespace ember::test
