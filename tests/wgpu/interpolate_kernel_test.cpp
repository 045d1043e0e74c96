// The wgpu device's interpolation kernels against ndarray (the checks shared with vulkan,
// tests/support/interpolate_checks.h): f32 and f16 on the kernels (WGSL has no f64: the host).
#include <gtest/gtest.h>

#include "ember/device.h"
#include "ember/devices.h"
#include "support/interpolate_checks.h"

namespace ember::test {
namespace {

TEST(WgpuInterpolateKernels, MatchNdarrayAndRunOnTheDeviceWhereTheyTakeTheCase) {
  const Devices devices = Device::enumerate(DeviceType::Wgpu);
  if (devices.empty()) GTEST_SKIP() << "no WebGPU adapter on this machine (scripts/install-deps)";
  expect_interpolate_kernels_match_ndarray(devices[0], false, true);
}

}  // namespace
}  // namespace ember::test
