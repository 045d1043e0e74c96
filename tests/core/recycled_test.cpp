#include "core/recycled.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

namespace ember::detail {
namespace {

struct Tracked {
  static inline int live = 0;
  explicit Tracked(int v) : value(v) { ++live; }
  ~Tracked() { --live; }
  Tracked(const Tracked&) = delete;
  Tracked& operator=(const Tracked&) = delete;
  int value;
};

TEST(Recycled, AFreedBlockServesTheNextObjectOfItsSize) {
  auto first = make_recycled<Tracked>(1);
  const void* address = first.get();
  first.reset();
  EXPECT_EQ(Tracked::live, 0);
  const auto second = make_recycled<const Tracked>(2);
  EXPECT_EQ(static_cast<const void*>(second.get()), address);
  EXPECT_EQ(second->value, 2);
}

TEST(Recycled, ManyLiveObjectsAndObjectsFreedOnAnotherThread) {
  std::vector<std::shared_ptr<Tracked>> objects;
  for (int i = 0; i < 100; ++i)
    objects.push_back(make_recycled<Tracked>(i));
  int sum = 0;
  for (const auto& object : objects)
    sum += object->value;
  EXPECT_EQ(sum, 99 * 100 / 2);
  // Freed on a thread that then exits: its kept blocks are freed with it.
  std::thread([moved = std::move(objects)]() mutable { moved.clear(); }).join();
  EXPECT_EQ(Tracked::live, 0);
}

}  // namespace
}  // namespace ember::detail
