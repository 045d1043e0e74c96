#include "core/inline_vector.h"

#include <gtest/gtest.h>

#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace ember::detail {
namespace {

/// Counts the live instances, so that every element built is seen destroyed exactly once.
struct Counted {
  static inline int live = 0;
  std::string value;

  explicit Counted(std::string v) : value(std::move(v)) { ++live; }
  Counted(const Counted& other) : value(other.value) { ++live; }
  Counted(Counted&& other) noexcept : value(std::move(other.value)) { ++live; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { --live; }
};

using Vector = InlineVector<Counted, 2>;

/// The values of v in order, joined by commas.
std::string joined(const Vector& v) {
  std::string out;
  for (const Counted& c : v)
    out += (out.empty() ? "" : ",") + c.value;
  return out;
}

/// A vector of values "0", "1", ... (count of them).
Vector numbered(int count) {
  Vector v;
  for (int i = 0; i < count; ++i)
    v.emplace_back(std::to_string(i));
  return v;
}

class InlineVectorTest : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(Counted::live, 0) << "an element leaked or died twice"; }
};

TEST_F(InlineVectorTest, HoldsUpToNInlineAndGrowsPastIt) {
  Vector v = numbered(2);
  EXPECT_EQ(v.capacity(), 2u);
  const Counted* inline_first = v.data();
  v.emplace_back("2");
  EXPECT_GT(v.capacity(), 2u);
  EXPECT_NE(v.data(), inline_first) << "past N the elements move to the heap";
  for (int i = 3; i < 9; ++i)
    v.emplace_back(std::to_string(i));
  EXPECT_EQ(joined(v), "0,1,2,3,4,5,6,7,8");
  EXPECT_EQ(Counted::live, 9);
}

TEST_F(InlineVectorTest, PushBackOfItsOwnElementWhileGrowing) {
  Vector v = numbered(2);
  v.push_back(v.front());  // the copy is made before the elements move
  v.push_back(v[2]);
  EXPECT_EQ(joined(v), "0,1,0,0");
}

TEST_F(InlineVectorTest, MovesTakeInlineAndHeapElements) {
  for (const int count : {0, 1, 2, 5}) {
    Vector from = numbered(count);
    Vector to(std::move(from));
    EXPECT_EQ(to.size(), static_cast<std::size_t>(count));
    EXPECT_TRUE(from.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    Vector assigned = numbered(3);
    assigned = std::move(to);
    EXPECT_EQ(joined(assigned), joined(numbered(count)));
    EXPECT_EQ(Counted::live, count);  // assigned's only: the moved-from vectors are empty
  }
}

TEST_F(InlineVectorTest, CopiesAreEqualAndIndependent) {
  const Vector original = numbered(3);
  Vector copy = original;
  EXPECT_EQ(joined(copy), "0,1,2");
  copy[0].value = "changed";
  EXPECT_EQ(original[0].value, "0");
  Vector assigned = numbered(1);
  assigned = original;
  EXPECT_EQ(joined(assigned), "0,1,2");
  EXPECT_EQ(Counted::live, 9);
}

TEST_F(InlineVectorTest, ClearDestroysAndKeepsTheMemory) {
  Vector v = numbered(5);
  const std::size_t capacity = v.capacity();
  v.clear();
  EXPECT_EQ(Counted::live, 0);
  EXPECT_EQ(v.capacity(), capacity);
  v.emplace_back("again");
  EXPECT_EQ(joined(v), "again");
}

TEST_F(InlineVectorTest, AtChecksTheIndexAndSpansSeeTheElements) {
  InlineVector<int, 2> v{4, 5, 6};
  EXPECT_EQ(v.at(2), 6);
  EXPECT_THROW(v.at(3), std::out_of_range);
  const std::span<const int> view = v;
  EXPECT_EQ(view.size(), 3u);
  EXPECT_EQ(view[1], 5);
  EXPECT_EQ(v, (InlineVector<int, 2>{4, 5, 6}));
  EXPECT_NE(v, (InlineVector<int, 2>{4, 5}));
}

}  // namespace
}  // namespace ember::detail
