// The vulkan device's interpolation kernels against ndarray (the checks shared with wgpu,
// tests/support/interpolate_checks.h): f32, f64 where the device has shaderFloat64, f16 where it
// has shaderFloat16 and 16-bit storage (as its support of those dtypes says).
#include <gtest/gtest.h>

#include "support/interpolate_checks.h"
#include "vulkan/vulkan_test_util.h"

namespace ember::test {
namespace {

TEST(VulkanInterpolateKernels, MatchNdarrayAndRunOnTheDeviceWhereTheyTakeTheCase) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_interpolate_kernels_match_ndarray(*device, device->supports_dtype(DType::F64),
                                           device->supports_dtype(DType::F16));
}

}  // namespace
}  // namespace ember::test
