// MemoryManager: which pool each size goes to, the usage and report fields for a known sequence
// (worked out by hand from the size classes of docs/backends/cpu.md), persistent mode, cleanup,
// the steady state of a repeated allocation pattern, and several threads at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "backends/pools/memory_manager.h"
#include "cpu_test_util.h"

namespace ember::pools {
namespace {

namespace test = cpu::test;

using test::KiB;
using test::MiB;

/// The page sizes of the pools, in report order.
std::vector<uint64_t> page_sizes(const MemoryManager& memory) {
  std::vector<uint64_t> sizes;
  for (const SlicedPoolReport& r : memory.report())
    sizes.push_back(r.page_size);
  return sizes;
}

uint64_t pages_in_all_pools(const MemoryManager& memory) {
  uint64_t pages = 0;
  for (const SlicedPoolReport& r : memory.report())
    pages += r.pages;
  return pages;
}

TEST(MemoryManager, StartsWithTheSmallAndMediumPoolsAndNothingReserved) {
  const MemoryManager memory;
  EXPECT_EQ(page_sizes(memory), (std::vector<uint64_t>{2 * MiB, 32 * MiB}));
  EXPECT_EQ(test::fields(memory.usage()), test::fields(MemoryPoolUsage{}));
}

TEST(MemoryManager, UsageAndReportOfAKnownSequence) {
  MemoryManager memory;
  // 100 B: small pool, 128-byte slice. 300000 B: medium pool, 74 granules of 4 KiB = 303104.
  // 5 MiB + 1: large, quarter-octave class 6 MiB. 0 B: small pool, one 64-byte granule.
  std::byte* a = memory.allocate(100);
  std::byte* b = memory.allocate(300000);
  std::byte* c = memory.allocate(5 * MiB + 1);
  std::byte* d = memory.allocate(0);
  EXPECT_NE(a, d);
  const MemoryPoolUsage usage = memory.usage();
  EXPECT_EQ(usage.number_allocs, 4u);
  EXPECT_EQ(usage.bytes_in_use, 100 + 300000 + 5 * MiB + 1);
  EXPECT_EQ(usage.bytes_padding, 28 + 3104 + (MiB - 1) + 64);
  EXPECT_EQ(usage.bytes_reserved, 2 * MiB + 32 * MiB + 6 * MiB);

  const std::vector<SlicedPoolReport> report = memory.report();
  ASSERT_EQ(report.size(), 3u);
  EXPECT_EQ(test::fields(report[0]), test::fields(SlicedPoolReport{2 * MiB, 1, 1, 100}));
  EXPECT_EQ(test::fields(report[1]), test::fields(SlicedPoolReport{32 * MiB, 1, 1, 300000}));
  EXPECT_EQ(test::fields(report[2]), test::fields(SlicedPoolReport{6 * MiB, 1, 1, 5 * MiB + 1}));

  memory.deallocate(a, 100);
  memory.deallocate(b, 300000);
  memory.deallocate(c, 5 * MiB + 1);
  memory.deallocate(d, 0);
  const MemoryPoolUsage freed = memory.usage();
  EXPECT_EQ(test::fields(freed), test::fields(MemoryPoolUsage{0, 0, 0, 40 * MiB}))
      << "freed memory stays reserved";
}

TEST(MemoryManager, SizeClassBoundaries) {
  MemoryManager memory;
  std::vector<std::byte*> live;
  const uint64_t sizes[] = {256 * KiB, 256 * KiB + 1, 4 * MiB, 4 * MiB + 1,
                            5 * MiB,   9 * MiB,       8 * MiB, 7 * MiB + 1};
  for (const uint64_t bytes : sizes)
    live.push_back(memory.allocate(bytes));
  // Large classes in the order first used: 5 MiB (for 4 MiB + 1 and 5 MiB), 10 MiB (9 MiB),
  // 8 MiB (8 MiB and 7 MiB + 1).
  EXPECT_EQ(page_sizes(memory),
            (std::vector<uint64_t>{2 * MiB, 32 * MiB, 5 * MiB, 10 * MiB, 8 * MiB}));
  const std::vector<SlicedPoolReport> report = memory.report();
  EXPECT_EQ(report[0].largest_alloc, 256 * KiB);
  EXPECT_EQ(report[1].largest_alloc, 4 * MiB);
  EXPECT_EQ(report[2].pages, 2u);
  EXPECT_EQ(report[3].pages, 1u);
  EXPECT_EQ(report[4].pages, 2u);
  for (std::size_t i = 0; i < live.size(); ++i)
    memory.deallocate(live[i], sizes[i]);
}

TEST(MemoryManager, EveryAllocationIs64ByteAligned) {
  MemoryManager memory;
  std::vector<std::byte*> live;
  const uint64_t sizes[] = {1, 63, 65, 1000, 300 * KiB, 6 * MiB};
  for (const uint64_t bytes : sizes)
    live.push_back(memory.allocate(bytes));
  memory.set_persistent(true);
  live.push_back(memory.allocate(3));
  memory.set_persistent(false);
  for (std::size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(live[i]) % 64, 0u);
    memory.deallocate(live[i], i < std::size(sizes) ? sizes[i] : 3);
  }
}

TEST(MemoryManager, PersistentAllocationsAreExactSizeAndBypassThePools) {
  MemoryManager memory;
  memory.set_persistent(true);
  std::byte* weights = memory.allocate(1000);
  std::byte* empty = memory.allocate(0);
  memory.set_persistent(false);
  EXPECT_EQ(pages_in_all_pools(memory), 0u);
  // 0 bytes still gets a distinct block: one byte, counted as padding.
  EXPECT_EQ(test::fields(memory.usage()), test::fields(MemoryPoolUsage{2, 1000, 1, 1001}));

  std::byte* pooled = memory.allocate(1000);
  EXPECT_EQ(pages_in_all_pools(memory), 1u) << "persistent mode is off again";
  memory.deallocate(weights, 1000);
  memory.deallocate(empty, 0);
  EXPECT_EQ(test::fields(memory.usage()), test::fields(MemoryPoolUsage{1, 1000, 24, 2 * MiB}))
      << "persistent blocks go back to the OS when freed";
  memory.deallocate(pooled, 1000);
}

TEST(MemoryManager, PersistentModeNestsAndIgnoresAnUnmatchedOff) {
  MemoryManager memory;
  memory.set_persistent(false);  // no effect
  memory.set_persistent(true);
  memory.set_persistent(true);
  memory.set_persistent(false);
  std::byte* inner = memory.allocate(500);
  EXPECT_EQ(pages_in_all_pools(memory), 0u) << "still inside the outer scope";
  memory.set_persistent(false);
  std::byte* outer = memory.allocate(500);
  EXPECT_EQ(pages_in_all_pools(memory), 1u);
  memory.deallocate(inner, 500);
  memory.deallocate(outer, 500);
}

TEST(MemoryManager, PersistentModeBelongsToTheThreadThatSetIt) {
  MemoryManager memory;
  memory.set_persistent(true);
  std::byte* other = nullptr;
  std::thread([&] { other = memory.allocate(500); }).join();
  EXPECT_EQ(pages_in_all_pools(memory), 1u) << "the other thread's allocation is pooled";
  std::byte* mine = memory.allocate(500);
  EXPECT_EQ(memory.usage().bytes_reserved, 2 * MiB + 500);
  memory.set_persistent(false);
  memory.deallocate(other, 500);
  memory.deallocate(mine, 500);
}

TEST(MemoryManager, CleanupReleasesFreePagesAndKeepsLiveAllocationsIntact) {
  MemoryManager memory;
  // 100 KiB slices: 20 fit a 2 MiB page (20 * 102400 = 2048000), so 40 take two pages.
  std::vector<std::byte*> small;
  for (int i = 0; i < 40; ++i)
    small.push_back(memory.allocate(100 * KiB));
  std::byte* large_live = memory.allocate(6 * MiB);
  std::byte* large_freed = memory.allocate(6 * MiB);
  test::fill_pattern(small[3], 100 * KiB, 3);
  test::fill_pattern(large_live, 6 * MiB, 99);
  for (int i = 0; i < 40; ++i) {
    if (i != 3) memory.deallocate(small[static_cast<std::size_t>(i)], 100 * KiB);
  }
  memory.deallocate(large_freed, 6 * MiB);
  EXPECT_EQ(memory.usage().bytes_reserved, 4 * MiB + 12 * MiB);

  memory.cleanup();
  EXPECT_EQ(test::fields(memory.usage()),
            test::fields(MemoryPoolUsage{2, 100 * KiB + 6 * MiB, 0, 2 * MiB + 6 * MiB}));
  EXPECT_TRUE(test::has_pattern(small[3], 100 * KiB, 3));
  EXPECT_TRUE(test::has_pattern(large_live, 6 * MiB, 99));
  const std::vector<SlicedPoolReport> report = memory.report();
  ASSERT_EQ(report.size(), 3u) << "pools stay installed when their pages go";
  EXPECT_EQ(report[0].pages, 1u);
  EXPECT_EQ(report[0].pages_peak, 2u);
  EXPECT_EQ(report[1].pages, 0u);
  EXPECT_EQ(report[2].pages, 1u);
  EXPECT_EQ(report[2].pages_peak, 2u);
  memory.deallocate(small[3], 100 * KiB);
  memory.deallocate(large_live, 6 * MiB);
  memory.cleanup();
  EXPECT_EQ(test::fields(memory.usage()), test::fields(MemoryPoolUsage{}));
}

TEST(MemoryManager, AFreedSmallSliceWaitingForReuseCountsAsFree) {
  MemoryManager memory;
  std::byte* a = memory.allocate(100);
  memory.deallocate(a, 100);
  EXPECT_EQ(test::fields(memory.usage()), test::fields(MemoryPoolUsage{0, 0, 0, 2 * MiB}));
  std::byte* b = memory.allocate(100);
  EXPECT_EQ(b, a) << "the same 128-byte slice";
  EXPECT_EQ(test::fields(memory.usage()), test::fields(MemoryPoolUsage{1, 100, 28, 2 * MiB}));
  memory.deallocate(b, 100);
  memory.cleanup();
  EXPECT_EQ(test::fields(memory.usage()), test::fields(MemoryPoolUsage{}));
  EXPECT_EQ(memory.report()[0].pages, 0u) << "cleanup releases the page of a cached slice";
}

/// One step of a training-like pattern: activations allocated and freed in reverse, and weights
/// replaced (the new ones allocated while the old ones are live).
void training_like_step(MemoryManager& memory,
                        std::vector<std::pair<std::byte*, uint64_t>>& weights) {
  const uint64_t activation_sizes[] = {48, 4 * KiB, 70 * KiB, 300 * KiB, MiB, 5 * MiB, 100, 3000};
  std::vector<std::byte*> activations;
  for (const uint64_t bytes : activation_sizes)
    activations.push_back(memory.allocate(bytes));
  std::vector<std::pair<std::byte*, uint64_t>> updated;
  for (const auto& [old, bytes] : weights)
    updated.emplace_back(memory.allocate(bytes), bytes);
  for (std::size_t i = activations.size(); i-- > 0;)
    memory.deallocate(activations[i], activation_sizes[i]);
  for (const auto& [old, bytes] : weights)
    memory.deallocate(old, bytes);
  weights = std::move(updated);
}

TEST(MemoryManager, ARepeatedPatternReservesNothingNewAfterItsFirstRounds) {
  MemoryManager memory;
  std::vector<std::pair<std::byte*, uint64_t>> weights;
  const uint64_t weight_sizes[] = {256, 64 * KiB, 512 * KiB, 6 * MiB};
  for (const uint64_t bytes : weight_sizes)
    weights.emplace_back(memory.allocate(bytes), bytes);
  training_like_step(memory, weights);
  training_like_step(memory, weights);
  const uint64_t settled = memory.usage().bytes_reserved;
  for (int step = 0; step < 50; ++step) {
    training_like_step(memory, weights);
    ASSERT_EQ(memory.usage().bytes_reserved, settled) << "step " << step;
  }
  for (const auto& [p, bytes] : weights)
    memory.deallocate(p, bytes);
}

TEST(MemoryManager, AllocateAndFreeTheSameSizesReservesNothingAfterTheFirstIteration) {
  MemoryManager memory;
  const uint64_t sizes[] = {10, 200 * KiB, 3 * MiB, 9 * MiB, 64, 100 * KiB, 1};
  uint64_t first = 0;
  for (int iteration = 0; iteration < 20; ++iteration) {
    std::vector<std::byte*> live;
    for (const uint64_t bytes : sizes)
      live.push_back(memory.allocate(bytes));
    // Free in an order unlike allocation: odd positions first, then even.
    for (std::size_t i = 1; i < live.size(); i += 2)
      memory.deallocate(live[i], sizes[i]);
    for (std::size_t i = 0; i < live.size(); i += 2)
      memory.deallocate(live[i], sizes[i]);
    if (iteration == 0) first = memory.usage().bytes_reserved;
    ASSERT_EQ(memory.usage().bytes_reserved, first) << "iteration " << iteration;
  }
}

/// The first and last KiB of an allocation (all of a smaller one): enough to catch two threads
/// given overlapping memory.
struct Ends {
  uint64_t head;
  uint64_t tail;
};
Ends ends_of(uint64_t bytes) {
  const uint64_t head = std::min(bytes, KiB);
  return {head, std::min(bytes - head, KiB)};
}

void mark(std::byte* p, uint64_t bytes, uint8_t seed) {
  const Ends e = ends_of(bytes);
  test::fill_pattern(p, e.head, seed);
  test::fill_pattern(p + bytes - e.tail, e.tail, seed);
}

bool is_marked(const std::byte* p, uint64_t bytes, uint8_t seed) {
  const Ends e = ends_of(bytes);
  return test::has_pattern(p, e.head, seed) && test::has_pattern(p + bytes - e.tail, e.tail, seed);
}

TEST(MemoryManager, SeveralThreadsAllocateAndFreeAtOnce) {
  MemoryManager memory;
  constexpr int kThreads = 4;
  constexpr int kRounds = 3000;
  std::vector<int> corrupted(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      uint64_t state = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(t + 1);
      std::vector<std::pair<std::byte*, uint64_t>> live;
      const auto seed = static_cast<uint8_t>(t * 40 + 1);
      for (int round = 0; round < kRounds; ++round) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t r = state >> 33;
        // Mostly small, some medium, a few large.
        const uint64_t bytes = r % 100 < 90   ? r % (8 * KiB)
                               : r % 100 < 99 ? r % (2 * MiB)
                                              : 5 * MiB;
        std::byte* p = memory.allocate(bytes);
        mark(p, bytes, seed);
        live.emplace_back(p, bytes);
        if (live.size() > 16 || r % 3 == 0) {
          const auto [q, n] = live[r % live.size()];
          if (!is_marked(q, n, seed)) ++corrupted[static_cast<std::size_t>(t)];
          memory.deallocate(q, n);
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(r % live.size()));
        }
      }
      for (const auto& [q, n] : live)
        memory.deallocate(q, n);
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(corrupted, std::vector<int>(kThreads, 0));
  const MemoryPoolUsage usage = memory.usage();
  EXPECT_EQ(usage.number_allocs, 0u);
  EXPECT_EQ(usage.bytes_in_use, 0u);
  EXPECT_EQ(usage.bytes_padding, 0u);
  memory.cleanup();
  EXPECT_EQ(memory.usage().bytes_reserved, 0u) << "every page was free again";
}

}  // namespace
}  // namespace ember::pools
