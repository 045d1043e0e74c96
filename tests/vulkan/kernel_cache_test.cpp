// The vulkan backend's kernel cache against what another build may have left in the shared disk
// cache: a file that passes the disk cache's own checks but whose code is not SPIR-V (a build of
// an older file format stored its words differently) is compiled again, never handed to the
// driver, where lavapipe failed the pipeline with VK_ERROR_UNKNOWN.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "backends/kernel_disk_cache.h"
#include "backends/vulkan/kernel_cache.h"
#include "backends/vulkan/vulkan_context.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"
#include "vulkan_test_util.h"

namespace ember::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSource = R"(#version 450
// tests/vulkan/kernel_cache_test.cpp
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) buffer X { float x[]; };
void main() { x[gl_GlobalInvocationID.x] = float(p[0]); }
)";

/// The key of the one file in folder: the disk cache's layout (kernel_disk_cache.cpp) starts
/// with the key's length in 8 bytes, then the key.
std::string only_key(const fs::path& folder) {
  std::string key;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    ++files;
    std::ifstream file(entry.path(), std::ios::binary);
    uint64_t length = 0;
    file.read(reinterpret_cast<char*>(&length), sizeof length);
    key.resize(length);
    file.read(key.data(), static_cast<std::streamsize>(length));
  }
  EXPECT_EQ(files, 1);
  return key;
}

/// The first 32-bit word of code (the SPIR-V specification's magic number in a module).
uint32_t first_word(const std::string& code) {
  uint32_t word = 0;
  if (code.size() >= sizeof word) std::memcpy(&word, code.data(), sizeof word);
  return word;
}

/// A context on the first Vulkan device (or a skip) and a disk cache of the test's own.
class VulkanKernelCache : public testing::Test {
 protected:
  void SetUp() override {
    EMBER_SKIP_WITHOUT_VULKAN(device);
    const vulkan::PhysicalDevice* physical = vulkan::select(DeviceKind::default_device());
    ASSERT_NE(physical, nullptr);
    context = std::make_shared<vulkan::Context>(*physical, "vulkan:test");
  }

  const TempDir folder{"ember-vulkan-kernels"};
  const ScopedEnv cache_dir{"EMBER_CACHE_DIR", folder.path().string()};
  std::shared_ptr<vulkan::Context> context;
};

TEST_F(VulkanKernelCache, CodeOnDiskThatIsNotSpirvIsCompiledAgainNotHandedToTheDriver) {
  vulkan::KernelCache(context).kernel(kSource, 1);

  // What a build of the older file format read from a file of this one: the code's length and
  // hash (16 bytes) before the SPIR-V.
  const backend::KernelDiskCache disk("vulkan", ".spv");
  const std::string key = only_key(folder / "vulkan");
  const std::string spirv = disk.load(key);
  ASSERT_EQ(first_word(spirv), 0x07230203u);
  disk.store(key, std::string(16, '\x11') + spirv);

  vulkan::KernelCache fresh(context);
  EXPECT_NO_THROW(fresh.kernel(kSource, 1));
  EXPECT_EQ(fresh.compilations(), 1);
  EXPECT_EQ(disk.load(key), spirv);  // stored over
}

TEST_F(VulkanKernelCache, SpirvOnDiskIsLoadedNotCompiled) {
  vulkan::KernelCache first(context);
  first.kernel(kSource, 1);
  EXPECT_EQ(first.compilations(), 1);
  vulkan::KernelCache second(context);
  EXPECT_NO_THROW(second.kernel(kSource, 1));
  EXPECT_EQ(second.compilations(), 0);
}

}  // namespace
}  // namespace ember::test
