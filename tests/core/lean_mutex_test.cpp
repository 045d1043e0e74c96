#include "core/lean_mutex.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace ember::detail {
namespace {

TEST(LeanMutex, SerializesIncrementsFromSeveralThreads) {
  LeanMutex mutex;
  int64_t counter = 0;
  constexpr int kThreads = 4;
  constexpr int kIncrements = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        const std::lock_guard lock(mutex);
        ++counter;
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  EXPECT_EQ(counter, int64_t{kThreads} * kIncrements);
}

}  // namespace
}  // namespace ember::detail
