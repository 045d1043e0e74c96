// SlicedPool on small pages (4 KiB, 64-byte granules) so that every offset and count below can be
// worked out by hand: best-fit reuse, splitting, merging with either neighbour, dedicated pages,
// releasing free pages while live slices keep their bytes, the report, and the cache of recycled
// slices; and the huge-page alignment of pages of 4 MiB or more.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/pools/sliced_pool.h"
#include "cpu_test_util.h"

namespace ember::pools {
namespace {

namespace test = cpu::test;

constexpr std::size_t kPage = 4096;
constexpr std::size_t kGranule = 64;

std::ptrdiff_t bytes_between(const std::byte* from, const std::byte* to) {
  return to - from;
}

/// count slices of bytes each, allocated in order.
std::vector<std::byte*> allocate_each(SlicedPool& pool, int count, std::size_t bytes) {
  std::vector<std::byte*> slices;
  for (int i = 0; i < count; ++i)
    slices.push_back(pool.allocate(bytes));
  return slices;
}

TEST(SlicedPool, RoundsSlicesUpToTheGranuleWithOneGranuleAtLeast) {
  const SlicedPool pool(kPage, kGranule);
  EXPECT_EQ(pool.slice_size(0), 64u);
  EXPECT_EQ(pool.slice_size(1), 64u);
  EXPECT_EQ(pool.slice_size(64), 64u);
  EXPECT_EQ(pool.slice_size(65), 128u);
  EXPECT_EQ(pool.slice_size(4096), 4096u);
}

TEST(SlicedPool, CarvesConsecutiveAlignedSlicesFromOnePage) {
  SlicedPool pool(kPage, kGranule);
  std::byte* a = pool.allocate(100);  // 128-byte slice
  std::byte* b = pool.allocate(64);
  std::byte* c = pool.allocate(1);
  EXPECT_EQ(bytes_between(a, b), 128);
  EXPECT_EQ(bytes_between(b, c), 64);
  for (const std::byte* p : {a, b, c})
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(pool.report().pages, 1u);
  EXPECT_EQ(pool.reserved_bytes(), kPage);
}

TEST(SlicedPool, PagesOfFourMibOrMoreStartOnAHugePageBoundary) {
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  for (const std::size_t page : {std::size_t{4} << 20, std::size_t{5} << 20}) {
    SlicedPool pool(page, kGranule);
    const std::vector<std::byte*> firsts = allocate_each(pool, 3, page);  // a page each
    for (const std::byte* first : firsts)
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % kHugePage, 0u) << "page of " << page;
  }
}

TEST(SlicedPool, AFreedSliceIsReusedWithoutANewPage) {
  SlicedPool pool(kPage, kGranule);
  std::byte* a = pool.allocate(1000);
  pool.free(a);
  EXPECT_EQ(pool.allocate(1000), a);
  EXPECT_EQ(pool.allocate(3000), a + 1024) << "the rest of the page: 4096 - 1024 >= 3000";
  EXPECT_EQ(pool.report().pages, 1u);
}

TEST(SlicedPool, TakesTheSmallestFreeSliceThatFits) {
  SlicedPool pool(kPage, kGranule);
  std::byte* big = pool.allocate(1024);
  std::byte* keep1 = pool.allocate(64);
  std::byte* small = pool.allocate(256);
  std::byte* keep2 = pool.allocate(64);
  pool.free(big);
  pool.free(small);
  // Free now: [0, 1024), [1088, 1344) and the tail [1408, 4096). 200 bytes fit all three; the
  // 256-byte hole is the best fit.
  EXPECT_EQ(pool.allocate(200), small);
  EXPECT_EQ(pool.allocate(1024), big);
  pool.free(keep1);
  pool.free(keep2);
}

TEST(SlicedPool, AFreedSliceMergesWithAFreeNextNeighbour) {
  SlicedPool pool(kPage, kGranule);
  std::byte* a = pool.allocate(1024);
  std::byte* b = pool.allocate(1024);
  pool.allocate(2048);
  pool.free(b);
  pool.free(a);  // merges with b into [0, 2048)
  EXPECT_EQ(pool.allocate(2048), a);
  EXPECT_EQ(pool.report().pages, 1u);
}

TEST(SlicedPool, AFreedSliceMergesWithAFreePreviousNeighbour) {
  SlicedPool pool(kPage, kGranule);
  std::byte* a = pool.allocate(1024);
  std::byte* b = pool.allocate(1024);
  pool.allocate(2048);
  pool.free(a);
  pool.free(b);  // merges with a into [0, 2048)
  EXPECT_EQ(pool.allocate(2048), a);
  EXPECT_EQ(pool.report().pages, 1u);
}

TEST(SlicedPool, AFreedSliceBetweenTwoFreeNeighboursMergesWithBoth) {
  SlicedPool pool(kPage, kGranule);
  std::byte* a = pool.allocate(1024);
  std::byte* b = pool.allocate(1024);
  std::byte* c = pool.allocate(1024);
  std::byte* d = pool.allocate(1024);
  pool.free(a);
  pool.free(c);
  pool.free(b);  // [0, 3072) is one free slice again
  EXPECT_EQ(pool.allocate(3072), a);
  pool.free(d);
  EXPECT_EQ(pool.report().pages, 1u);
}

TEST(SlicedPool, APageWhoseSlicesAreAllFreedServesAWholePageAgain) {
  SlicedPool pool(kPage, kGranule);
  std::vector<std::byte*> slices = allocate_each(pool, 16, 256);
  // Free in an order that exercises every kind of merge.
  for (const int i : {3, 1, 2, 0, 15, 8, 10, 9, 4, 7, 5, 6, 12, 14, 13, 11})
    pool.free(slices[static_cast<std::size_t>(i)]);
  EXPECT_EQ(pool.allocate(kPage), slices[0]);
  EXPECT_EQ(pool.report().pages, 1u);
}

TEST(SlicedPool, TakesANewPageOnlyWhenNoFreeSliceFits) {
  SlicedPool pool(kPage, kGranule);
  std::byte* a = pool.allocate(3000);  // 3008 bytes, 1088 left
  std::byte* b = pool.allocate(2000);  // does not fit the rest: second page
  EXPECT_EQ(pool.report().pages, 2u);
  std::byte* c = pool.allocate(1000);  // fits the rest of the first page (best fit: 1088)
  EXPECT_EQ(bytes_between(a, c), 3008);
  EXPECT_EQ(pool.report().pages, 2u);
  pool.free(b);
}

TEST(SlicedPool, ADedicatedPagePoolGivesEachAllocationAWholePage) {
  SlicedPool pool(kPage, kPage);
  EXPECT_EQ(pool.slice_size(3500), kPage);
  std::byte* a = pool.allocate(3500);
  std::byte* b = pool.allocate(3900);
  EXPECT_EQ(pool.report().pages, 2u);
  pool.free(a);
  EXPECT_EQ(pool.allocate(4000), a) << "a freed page is reused, not returned";
  pool.free(b);
  EXPECT_EQ(pool.report().pages, 2u);
}

TEST(SlicedPool, ReleaseFreePagesReturnsOnlyPagesWithoutLiveSlices) {
  SlicedPool pool(kPage, kGranule);
  std::vector<std::byte*> slices = allocate_each(pool, 12, 1024);  // 4 per page, 3 pages
  ASSERT_EQ(pool.report().pages, 3u);
  // Pattern into the slices that stay live: one in page 0, all of page 2.
  const std::vector<std::size_t> live = {1, 8, 9, 10, 11};
  for (const std::size_t i : live)
    test::fill_pattern(slices[i], 1024, static_cast<uint8_t>(i));
  for (const std::size_t i : {0, 2, 3, 4, 5, 6, 7})
    pool.free(slices[i]);

  EXPECT_EQ(pool.release_free_pages(), kPage) << "page 1 only";
  EXPECT_EQ(pool.report().pages, 2u);
  EXPECT_EQ(pool.reserved_bytes(), 2 * kPage);
  for (const std::size_t i : live)
    EXPECT_TRUE(test::has_pattern(slices[i], 1024, static_cast<uint8_t>(i))) << i;
  EXPECT_EQ(pool.release_free_pages(), 0u) << "nothing left to release";

  // The free slices of page 0 are still usable after the release.
  EXPECT_EQ(pool.allocate(1024), slices[0]);
}

TEST(SlicedPool, ReportsPagesThePeakAndTheLargestAllocation) {
  SlicedPool pool(kPage, kGranule);
  const SlicedPoolReport empty = pool.report();
  EXPECT_EQ(empty.page_size, kPage);
  EXPECT_EQ(empty.pages, 0u);
  EXPECT_EQ(empty.pages_peak, 0u);
  EXPECT_EQ(empty.largest_alloc, 0u);

  std::byte* a = pool.allocate(4000);
  std::byte* b = pool.allocate(3000);
  std::byte* c = pool.allocate(10);  // best fit: the 64 bytes left after a
  pool.free(a);
  pool.free(b);
  pool.release_free_pages();
  const SlicedPoolReport r = pool.report();
  EXPECT_EQ(r.pages, 1u) << "c keeps its page";
  EXPECT_EQ(r.pages_peak, 2u);
  EXPECT_EQ(r.largest_alloc, 4000u) << "the bytes asked for, not the slice";
  pool.free(c);
}

TEST(SlicedPool, ARecycledSliceServesTheNextAllocationOfItsSize) {
  SlicedPool pool(kPage, kGranule);
  std::byte* a = pool.allocate(100);  // 128-byte slice at offset 0
  std::byte* b = pool.allocate(64);
  pool.recycle(a, 100);
  EXPECT_EQ(pool.allocate(64), b + kGranule) << "another size: the free rest of the page";
  EXPECT_EQ(pool.allocate(120), a) << "same 128-byte slice, taken from the cache";
  EXPECT_EQ(pool.report().largest_alloc, 120u) << "a cached slice still counts what was asked";
}

TEST(SlicedPool, RecycledSlicesMergeBackBeforeANewPageIsTaken) {
  SlicedPool pool(kPage, kGranule);
  std::byte* a = pool.allocate(1024);
  std::byte* b = pool.allocate(1024);
  pool.allocate(2048);
  pool.recycle(a, 1024);
  pool.recycle(b, 1024);
  EXPECT_EQ(pool.allocate(2048), a) << "a and b merged into [0, 2048)";
  EXPECT_EQ(pool.report().pages, 1u);
}

TEST(SlicedPool, ReleaseFreePagesReleasesPagesOfRecycledSlices) {
  SlicedPool pool(kPage, kGranule);
  std::byte* a = pool.allocate(64);
  pool.recycle(a, 64);
  EXPECT_EQ(pool.release_free_pages(), kPage);
  EXPECT_EQ(pool.report().pages, 0u);
}

TEST(SlicedPool, RecycledSlicesPastTheCacheGoToTheTrees) {
  SlicedPool pool(kPage, kGranule);
  std::vector<std::byte*> slices = allocate_each(pool, 8, 64);
  pool.allocate(kPage - 8 * kGranule);  // fills the page
  for (std::byte* slice : slices)
    pool.recycle(slice, 64);
  // Whatever the cache holds, all eight come back as 64-byte slices of the one page.
  std::vector<std::byte*> again = allocate_each(pool, 8, 64);
  std::ranges::sort(slices);
  std::ranges::sort(again);
  EXPECT_EQ(again, slices);
  EXPECT_EQ(pool.report().pages, 1u);
}

}  // namespace
}  // namespace ember::pools
