#include "core/recycled_shapes.h"

#include <gtest/gtest.h>

#include <thread>
#include <utility>

#include "core/thread_instance.h"

namespace ember::detail {
namespace {

TEST(RecycledShapes, ACopyReusesARecycledShapesMemory) {
  // Copies taken (and freed) until the thread keeps no shape, so that the next one kept is used.
  for (int i = 0; i < 64; ++i)  // more than any thread keeps
    recycled_copy(Shape{1});
  Shape dead{4, 5, 6};
  const int64_t* memory = dead.dims().data();
  recycle(std::move(dead));
  const Shape copy = recycled_copy(Shape{2, 3});
  EXPECT_EQ(copy, (Shape{2, 3}));
  EXPECT_EQ(copy.dims().data(), memory);
}

TEST(RecycledShapes, CopiesAreRightWithAndWithoutSpares) {
  // More copies than shapes kept: the later ones are fresh.
  for (int i = 0; i < 64; ++i) {
    const Shape original{i, i + 1};
    EXPECT_EQ(recycled_copy(original), original);
  }
  for (int i = 0; i < 64; ++i)
    recycle(Shape{i});  // past the room kept: freed, not kept
  EXPECT_EQ(recycled_copy(Shape{}), Shape{});
}

TEST(ThreadInstance, OnePerThread) {
  int* mine = thread_instance<int>();
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(thread_instance<int>(), mine);
  int* other = nullptr;
  std::thread([&] { other = thread_instance<int>(); }).join();
  EXPECT_NE(other, nullptr);
  EXPECT_NE(other, mine);
}

}  // namespace
}  // namespace ember::detail
