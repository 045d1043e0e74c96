// The wgpu device's index-copy kernels (full, cat, slice_assign, select, gather, select_assign,
// scatter) against ndarray, and their index errors (support/index_copy_checks.h).
#include <gtest/gtest.h>

#include "ember/device.h"
#include "ember/devices.h"
#include "support/index_copy_checks.h"

namespace ember::test {
namespace {

constexpr const char* kNoAdapter =
    "no WebGPU adapter on this machine (Device::enumerate(DeviceType::Wgpu) is empty): install "
    "mesa-vulkan-drivers (scripts/install-deps)";

TEST(WgpuIndexCopy, EveryDTypeMatchesNdarrayOnTheDeviceAcrossDimsAndEdges) {
  const Devices devices = Device::enumerate(DeviceType::Wgpu);
  if (devices.empty()) GTEST_SKIP() << kNoAdapter;
  expect_index_copies_match_ndarray(devices[0], false);  // WGSL has no double
}

TEST(WgpuIndexCopy, AnEmbeddingsGradientRunsOnTheDevice) {
  const Devices devices = Device::enumerate(DeviceType::Wgpu);
  if (devices.empty()) GTEST_SKIP() << kNoAdapter;
  expect_sparse_updates_of_a_large_table_on_the_device(devices[0]);
}

TEST(WgpuIndexCopy, IndicesFromTheHostAreNotCheckedOnTheDevice) {
  const Devices devices = Device::enumerate(DeviceType::Wgpu);
  if (devices.empty()) GTEST_SKIP() << kNoAdapter;
  expect_indices_from_the_host_are_not_checked_again(devices[0]);
}

TEST(WgpuIndexCopy, AnIndexOutOfRangeIsNdarraysErrorAndTheDeviceGoesOn) {
  const Devices devices = Device::enumerate(DeviceType::Wgpu);
  if (devices.empty()) GTEST_SKIP() << kNoAdapter;
  expect_index_out_of_range_is_ndarrays_error(devices[0]);
}

}  // namespace
}  // namespace ember::test
