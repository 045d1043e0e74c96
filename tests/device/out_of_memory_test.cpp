// Running out of memory is an ExecutionError (error.h: "out of memory included") on every CPU
// device, naming the bytes requested and what the device's pools hold; the device then works
// as before, and a device with pools holds no more than it did once memory_cleanup ran.
//
// Every request here is at least 2^48 bytes: more than x86-64 can map (128 TiB), so it fails on
// any machine, whatever its memory and overcommit policy, without touching a page.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "device_test_util.h"
#include "ember/device.h"
#include "ember/tensor.h"
#include "support/sanitizer.h"

namespace ember {
namespace {

using test::contains;
using test::error_message;

constexpr int64_t kHuge = int64_t{1} << 46;  // elements: 2^48 bytes of f32, 2^49 of i64

struct Exhausting {
  std::string name;
  std::function<void(const Device&)> run;
};

/// The ops the hardening issue found throwing std::bad_alloc, each reading its result.
std::vector<Exhausting> exhausting_ops() {
  return {
      {"zeros", [](const Device& d) { Tensor<1>::zeros({kHuge}, d).into_data(); }},
      {"arange", [](const Device& d) { Tensor<1, Int>::arange(0, kHuge, d).into_data(); }},
      {"eye", [](const Device& d) { Tensor<2>::eye(int64_t{1} << 24, d).into_data(); }},
      {"repeat_dim",
       [](const Device& d) { Tensor<1>::ones({1}, d).repeat_dim(0, kHuge).into_data(); }},
  };
}

Devices all_devices() {
  return Device::enumerate(DeviceFilter::all());
}

/// Values computed after a failure: the device still works.
void expect_device_works(const Device& device) {
  const Tensor<1> x = Tensor<1>::from_floats({1.0, 2.0, 3.0}, device);
  EXPECT_EQ((x * 2.0 + 1.0).into_data().to_vector<float>(), (std::vector<float>{3, 5, 7}))
      << device;
}

TEST(OutOfMemory, IsAnExecutionErrorNamingTheRequestOnEveryDevice) {
  if (!test::kOutOfMemoryThrows) GTEST_SKIP() << test::kAsanEndsOnOutOfMemory;
  for (const Device& device : all_devices()) {
    for (const Exhausting& op : exhausting_ops()) {
      SCOPED_TRACE(op.name + " on " + device.name());
      const std::string message = error_message<ExecutionError>([&] { op.run(device); });
      EXPECT_TRUE(contains(message, "out of memory"));
      EXPECT_TRUE(contains(message, "bytes"));
      // What the device holds: its pools' bytes, or that it keeps none.
      EXPECT_TRUE(contains(message, device.memory_pool_usage() ? "pools hold" : "no memory pool"));
      expect_device_works(device);
    }
  }
}

TEST(OutOfMemory, ThePoolsHoldNoMoreAfterCleanup) {
  if (!test::kOutOfMemoryThrows) GTEST_SKIP() << test::kAsanEndsOnOutOfMemory;
  for (const Device& device : all_devices()) {
    if (!device.memory_pool_usage()) continue;  // no pools (ndarray, flex)
    SCOPED_TRACE(device.name());
    const Tensor<1> kept = Tensor<1>::ones({1000}, device);
    device.sync();
    device.memory_cleanup();
    const MemoryPoolUsage before = *device.memory_pool_usage();
    for (const Exhausting& op : exhausting_ops())
      EXPECT_THROW(op.run(device), ExecutionError) << op.name;
    device.memory_cleanup();
    const MemoryPoolUsage after = *device.memory_pool_usage();
    EXPECT_EQ(after.number_allocs, before.number_allocs);
    EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
    EXPECT_LE(after.bytes_reserved, before.bytes_reserved);
    EXPECT_EQ(kept.sum().into_scalar<float>(), 1000.0f);
  }
}

TEST(OutOfMemory, AQueuedOpThatRunsOutFailsAloneAndEarlierWorkIsKept) {
  if (!test::kOutOfMemoryThrows) GTEST_SKIP() << test::kAsanEndsOnOutOfMemory;
  // On a lazy device (cpu) the queue runs later, at the read: the failure must not take the
  // values queued before it.
  for (const Device& device : all_devices()) {
    SCOPED_TRACE(device.name());
    const Tensor<1> before = Tensor<1>::from_floats({1.0, 2.0}, device) + 1.0;
    // An eager device fails at the op, a lazy one at the read.
    EXPECT_THROW(Tensor<1>::ones({1}, device).repeat_dim(0, kHuge).into_data(), ExecutionError);
    EXPECT_EQ(before.into_data().to_vector<float>(), (std::vector<float>{2, 3}));
    expect_device_works(device);
  }
}

}  // namespace
}  // namespace ember
