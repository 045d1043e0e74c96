// The vulkan device's interpolation kernels against ndarray (the checks shared with wgpu,
// tests/support/interpolate_checks.h): f32, and f64 where the device has shaderFloat64.
#include <gtest/gtest.h>

#include "support/interpolate_checks.h"
#include "vulkan/vulkan_test_util.h"

namespace ember::test {
namespace {

TEST(VulkanInterpolateKernels, MatchNdarrayAndRunOnTheDeviceWhereTheyTakeTheCase) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_interpolate_kernels_match_ndarray(*device, device->supports_dtype(DType::F64));
}

}  // namespace
}  // namespace ember::test
