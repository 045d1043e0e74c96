// The vulkan device's index-copy kernels (full, cat, slice_assign, select, gather,
// select_assign, scatter) against ndarray, and their index errors (support/index_copy_checks.h).
#include <gtest/gtest.h>

#include "support/index_copy_checks.h"
#include "vulkan/vulkan_test_util.h"

namespace ember::test {
namespace {

TEST(VulkanIndexCopy, EveryDTypeMatchesNdarrayOnTheDeviceAcrossDimsAndEdges) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  // f64 support is shaderFloat64: the kernel's double accumulator.
  expect_index_copies_match_ndarray(*device, device->supports_dtype(DType::F64));
}

TEST(VulkanIndexCopy, AnEmbeddingsGradientRunsOnTheDevice) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_sparse_updates_of_a_large_table_on_the_device(*device);
}

TEST(VulkanIndexCopy, IndicesFromTheHostAreNotCheckedOnTheDevice) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_indices_from_the_host_are_not_checked_again(*device);
}

TEST(VulkanIndexCopy, AnIndexOutOfRangeIsNdarraysErrorAndTheDeviceGoesOn) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_index_out_of_range_is_ndarrays_error(*device);
}

}  // namespace
}  // namespace ember::test
