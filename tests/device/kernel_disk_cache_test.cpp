// The GPU backends' on-disk kernel cache (backends/kernel_disk_cache.h): what a process stores
// another loads byte for byte, and a file cut short, damaged, or stored under another key is a
// miss that compiles again, never code handed on.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backends/kernel_disk_cache.h"

namespace ember::backend {
namespace {

namespace fs = std::filesystem;

/// A fresh EMBER_CACHE_DIR for one test, restored after it.
class KernelDiskCacheTest : public testing::Test {
 protected:
  void SetUp() override {
    folder_ =
        fs::temp_directory_path() / ("ember_kernel_cache_" + std::to_string(::getpid()) + "_" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    if (const char* old = std::getenv("EMBER_CACHE_DIR")) old_ = old;
    ::setenv("EMBER_CACHE_DIR", folder_.c_str(), 1);
  }
  void TearDown() override {
    if (old_.empty())
      ::unsetenv("EMBER_CACHE_DIR");
    else
      ::setenv("EMBER_CACHE_DIR", old_.c_str(), 1);
    fs::remove_all(folder_);
  }
  /// The one file the cache holds.
  fs::path only_file() const {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(folder_))
      if (entry.is_regular_file()) files.push_back(entry.path());
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? fs::path() : files[0];
  }

  fs::path folder_;
  std::string old_;
};

// Code with zero bytes and every byte value: binary machine code, not text.
std::string some_code() {
  std::string code;
  for (int i = 0; i < 1000; ++i)
    code.push_back(static_cast<char>(i * 7));
  return code;
}

TEST_F(KernelDiskCacheTest, WhatOneCacheStoresAnotherLoadsByteForByte) {
  KernelDiskCache("test", ".bin").store("key one", some_code());
  EXPECT_EQ(KernelDiskCache("test", ".bin").load("key one"), some_code());
  EXPECT_EQ(KernelDiskCache("test", ".bin").load("key two"), "");
}

TEST_F(KernelDiskCacheTest, ACompiledKernelIsStoredOnceAndLoadedAfter) {
  int compiles = 0;
  const auto compile = [&] {
    ++compiles;
    return some_code();
  };
  EXPECT_EQ(KernelDiskCache("test", ".bin").load_or_compile("k", compile), some_code());
  EXPECT_EQ(KernelDiskCache("test", ".bin").load_or_compile("k", compile), some_code());
  EXPECT_EQ(compiles, 1);
}

TEST_F(KernelDiskCacheTest, AFileCutShortIsAMiss) {
  const KernelDiskCache cache("test", ".bin");
  cache.store("k", some_code());
  const fs::path file = only_file();
  fs::resize_file(file, fs::file_size(file) - 1);
  EXPECT_EQ(cache.load("k"), "");
  int compiles = 0;
  EXPECT_EQ(cache.load_or_compile("k",
                                  [&] {
                                    ++compiles;
                                    return some_code();
                                  }),
            some_code());
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(cache.load("k"), some_code());  // stored whole again
}

TEST_F(KernelDiskCacheTest, ADamagedByteOfTheCodeIsAMiss) {
  const KernelDiskCache cache("test", ".bin");
  cache.store("k", some_code());
  const fs::path file = only_file();
  const auto size = static_cast<std::streamoff>(fs::file_size(file));
  std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
  stream.seekg(size - 10);
  char byte = 0;
  stream.read(&byte, 1);
  stream.seekp(size - 10);
  byte = static_cast<char>(byte ^ 0x20);
  stream.write(&byte, 1);
  stream.close();
  EXPECT_EQ(cache.load("k"), "");
}

TEST_F(KernelDiskCacheTest, TurnedOffItStoresNothing) {
  ::setenv("EMBER_CACHE_DIR", "off", 1);
  const KernelDiskCache cache("test", ".bin");
  cache.store("k", some_code());
  EXPECT_EQ(cache.load("k"), "");
  EXPECT_FALSE(fs::exists(folder_));
}

}  // namespace
}  // namespace ember::backend
