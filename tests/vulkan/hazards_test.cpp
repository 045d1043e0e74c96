// The command stream's barriers (backends/vulkan/hazards.h): which bindings a kernel's GLSL
// writes, which pairs of accesses must be ordered, and on the device that independent commands
// run without a barrier between them while a read of a result waits for it, with the right
// values either way. (Khronos' synchronization validation, VK_LAYER_KHRONOS_validation with
// VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT, found no hazard in this suite, the
// conformance and gradcheck rows of vulkan, or the encoder step; docs/backends/vulkan.md.)
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/hazards.h"
#include "backends/vulkan/kernel_cache.h"
#include "backends/vulkan/vulkan_context.h"
#include "vulkan_test_util.h"

namespace ember::test {
namespace {

using vulkan::Access;
using vulkan::BufferRange;

/// y = 2 x, binding 1 read only, binding 2 written.
constexpr const char* kDouble = R"(#version 450
// tests/vulkan/hazards_test.cpp
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < p[0]) y[i] = 2.0 * x[i];
}
)";

TEST(VulkanHazards, BindingsNotDeclaredReadonlyAreWritten) {
  EXPECT_EQ(vulkan::written_tensors(kDouble, 2), (std::vector<bool>{false, true}));
  // No qualifier (read and written), spacing of another emitter, and a binding declared nowhere.
  const char* other =
      "layout(std430,set=0,binding=1) buffer A { uint a[]; };\n"
      "layout(binding =2, std430) readonly  buffer B { uint b[]; };\n";
  EXPECT_EQ(vulkan::written_tensors(other, 3), (std::vector<bool>{true, false, true}));
}

TEST(VulkanHazards, OnlyOverlapsWithAWriteWait) {
  const auto slice = [](uint64_t buffer, VkDeviceSize offset, VkDeviceSize bytes) {
    return BufferRange{reinterpret_cast<VkBuffer>(buffer), offset, bytes};
  };
  vulkan::HazardTracker tracker;
  const Access read_a{slice(1, 0, 256), false};
  tracker.add(std::span(&read_a, 1));
  const Access other_reads[] = {{slice(1, 128, 256), false}, {slice(1, 0, 64), false}};
  EXPECT_FALSE(tracker.must_wait(other_reads));  // reads after a read
  const Access write_after[] = {{slice(1, 255, 4), true}};
  EXPECT_TRUE(tracker.must_wait(write_after));  // a write after a read of the same bytes
  const Access write_beside[] = {{slice(1, 256, 4), true}, {slice(2, 0, 256), true}};
  EXPECT_FALSE(tracker.must_wait(write_beside));  // past its end, and another buffer
  tracker.add(write_beside);
  const Access read_written[] = {{slice(2, 100, VK_WHOLE_SIZE), false}};
  EXPECT_TRUE(tracker.must_wait(read_written));  // a read after a write, to the buffer's end
  tracker.clear();
  EXPECT_FALSE(tracker.must_wait(read_written));
}

TEST(VulkanHazards, IndependentDispatchesShareABarrierAndAReadOfAResultWaits) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  const vulkan::PhysicalDevice* physical = vulkan::select(DeviceKind::default_device());
  ASSERT_NE(physical, nullptr);
  const auto context = std::make_shared<vulkan::Context>(*physical, "vulkan:test");
  const auto stream = std::make_shared<vulkan::CommandStream>(context);
  vulkan::KernelCache kernels(context);
  vulkan::DevicePages pages(context, false, [&] { stream->sync(); });
  constexpr uint32_t n = 1000;
  constexpr std::size_t bytes = n * sizeof(float);
  std::vector<std::byte*> blocks;
  std::vector<BufferRange> slices;
  for (int t = 0; t < 4; ++t) {
    blocks.push_back(pages.take(bytes, 256));
    slices.push_back(pages.locate(blocks.back(), bytes));
  }
  const BufferRange x = slices[0], y1 = slices[1], y2 = slices[2], z = slices[3];
  std::vector<float> values(n);
  for (uint32_t i = 0; i < n; ++i)
    values[i] = 0.5f * static_cast<float>(i) - 7.0f;
  stream->upload(std::as_bytes(std::span(values)), x);
  const vulkan::Kernel& doubling = kernels.kernel(kDouble, 2);
  const uint32_t words[] = {n};
  const auto twice = [&](const BufferRange& from, const BufferRange& to) {
    const BufferRange tensors[] = {from, to};
    stream->dispatch(doubling, std::as_bytes(std::span(words)), tensors, (n + 63) / 64);
  };

  const int before = stream->barriers();
  twice(x, y1);  // reads the upload: waits for it
  EXPECT_EQ(stream->barriers(), before + 1);
  twice(x, y2);  // reads x too, writes elsewhere: no barrier
  EXPECT_EQ(stream->barriers(), before + 1);
  twice(y1, z);  // reads y1: waits for its write
  EXPECT_EQ(stream->barriers(), before + 2);
  twice(z, y2);  // writes y2, written by the second: waits (and reads z)
  EXPECT_EQ(stream->barriers(), before + 3);

  std::vector<float> got(n);
  stream->download(y2, std::as_writable_bytes(std::span(got)));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], 8.0f * values[i]) << "element " << i;
  stream->download(y1, std::as_writable_bytes(std::span(got)));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], 2.0f * values[i]) << "element " << i;
  stream->sync();
  for (std::byte* block : blocks)
    pages.give_back(block, bytes, 256);
}

}  // namespace
}  // namespace ember::test
