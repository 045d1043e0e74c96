// The vulkan device's convolution and pooling kernels against ndarray (the checks shared with
// wgpu, tests/support/conv_pool_checks.h), with either convolution kernel; f64 on the kernels
// where the device has shaderFloat64.
#include <gtest/gtest.h>

#include "support/conv_pool_checks.h"
#include "vulkan_test_util.h"

namespace ember::test {
namespace {

TEST(VulkanConvPoolKernels, MatchNdarrayAndRunOnTheDeviceWhereTheyTakeTheCase) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_conv_pool_kernels_match_ndarray(*device, true);
}

TEST(VulkanConvPoolKernels, TheTiledConvolutionKernelMatchesNdarrayToo) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_tiled_conv_kernel_matches_ndarray(DeviceType::Vulkan, true);
}

}  // namespace
}  // namespace ember::test
