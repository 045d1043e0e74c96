// The allocator path the cpu backend stands on: flex storage comes from the current allocator,
// FlexBackend installs its own for execute and write, scopes nest, and a storage keeps its
// allocator alive after everything else has let go of it.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "backends/flex/allocator.h"
#include "backends/flex/flex_backend.h"
#include "backends/flex/storage.h"

namespace ember::flex {
namespace {

/// Counts what it hands out; the memory itself comes from new_delete_allocator().
class CountingAllocator final : public Allocator {
 public:
  std::byte* allocate(std::size_t bytes) override {
    ++live;
    live_bytes += bytes;
    return new_delete_allocator()->allocate(bytes);
  }
  void deallocate(std::byte* data, std::size_t bytes) noexcept override {
    --live;
    live_bytes -= bytes;
    new_delete_allocator()->deallocate(data, bytes);
  }
  int live = 0;
  std::size_t live_bytes = 0;
};

TEST(FlexAllocator, OutsideEveryScopeStorageComesFromNewDelete) {
  EXPECT_EQ(current_allocator(), new_delete_allocator());
  const Storage storage(10);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(storage.data()) % Allocator::kAlignment, 0u);
}

TEST(FlexAllocator, ScopesNestAndRestoreTheOuterAllocator) {
  const std::shared_ptr<Allocator> outer = std::make_shared<CountingAllocator>();
  const std::shared_ptr<Allocator> inner = std::make_shared<CountingAllocator>();
  {
    const AllocatorScope a(outer);
    EXPECT_EQ(current_allocator(), outer);
    {
      const AllocatorScope b(inner);
      EXPECT_EQ(current_allocator(), inner);
    }
    EXPECT_EQ(current_allocator(), outer);
  }
  EXPECT_EQ(current_allocator(), new_delete_allocator());
}

TEST(FlexAllocator, StorageAllocatesFromTheCurrentAllocatorAndGivesBackTheSameBytes) {
  const auto counting = std::make_shared<CountingAllocator>();
  const std::shared_ptr<Allocator> allocator = counting;
  {
    const AllocatorScope scope(allocator);
    const Storage a(100);
    const Storage b(0);
    EXPECT_EQ(counting->live, 2);
    EXPECT_EQ(counting->live_bytes, 100u);
  }
  EXPECT_EQ(counting->live, 0);
  EXPECT_EQ(counting->live_bytes, 0u);
}

TEST(FlexAllocator, AStorageKeepsItsAllocatorAlive) {
  auto storage = [] {
    const std::shared_ptr<Allocator> allocator = std::make_shared<CountingAllocator>();
    return std::make_unique<Storage>(64, allocator);
  }();
  // Only the storage refers to the allocator now; freeing through it must still work (ASan).
  storage.reset();
}

TEST(FlexAllocator, FlexBackendWritesAndExecutesThroughItsAllocator) {
  const auto counting = std::make_shared<CountingAllocator>();
  FlexBackend backend(counting);
  std::vector<backend::BufferPtr> buffers;
  buffers.push_back(backend.write(TensorData(std::vector<float>{1, 2, 3}, Shape{3})));
  EXPECT_EQ(counting->live, 1);
  EXPECT_EQ(counting->live_bytes, 12u);
  const ir::TensorMeta out[] = {{Shape{2, 2}, DType::F64}};
  for (backend::BufferPtr& b :
       backend.execute(ir::Full{Shape{2, 2}, DType::F64, Scalar(1.5)}, {}, out))
    buffers.push_back(std::move(b));
  EXPECT_EQ(counting->live, 2);
  EXPECT_EQ(counting->live_bytes, 12u + 32u);
  EXPECT_EQ(current_allocator(), new_delete_allocator()) << "the scope ended with the call";
  buffers.clear();
  EXPECT_EQ(counting->live, 0);
}

}  // namespace
}  // namespace ember::flex
