// from_external: tensors over memory the caller allocated, released through its deleter.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "interop_test_util.h"

namespace ember::test {
namespace {

/// Memory the test allocates, with a deleter that counts its calls and checks its argument.
struct Allocation {
  std::vector<double> values;
  int deleted = 0;

  interop::ExternalMemory memory(Shape shape, std::vector<int64_t> strides = {}) {
    return {values.data(), std::move(shape), DType::F64, std::move(strides), [this](void* data) {
              EXPECT_EQ(data, values.data());
              ++deleted;
            }};
  }
};

TEST(FromExternal, SharesTheMemoryWhileATensorHoldsIt) {
  for (const Device& device : sharing_devices()) {
    SCOPED_TRACE(name_of(device));
    Allocation allocation{{1, 2, 3, 4, 5, 6}};
    TensorHandle x = interop::from_external(allocation.memory(Shape{3, 2}), device);
    allocation.values[5] = 60;
    EXPECT_EQ(values_of<double>(x), (std::vector<double>{1, 2, 3, 4, 5, 60}));
    const TensorHandle t = ops::transpose(x);  // keeps the memory alive
    x = TensorHandle();
    EXPECT_EQ(allocation.deleted, 0);
    EXPECT_EQ(values_of<double>(t), (std::vector<double>{1, 3, 5, 2, 4, 60}));
  }
}

TEST(FromExternal, TheDeleterRunsWhenTheLastTensorDies) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    Allocation allocation{{1, 2}};
    {
      const TensorHandle x = interop::from_external(allocation.memory(Shape{2}), device);
      EXPECT_EQ(values_of<double>(x), (std::vector<double>{1, 2}));
    }
    EXPECT_EQ(allocation.deleted, 1);
  }
}

TEST(FromExternal, TakesStrides) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    Allocation allocation{{1, 0, 2, 0, 3, 0}};  // every other element
    const TensorHandle x = interop::from_external(allocation.memory(Shape{3}, {2}), device);
    EXPECT_EQ(values_of<double>(x), (std::vector<double>{1, 2, 3}));
  }
}

TEST(FromExternal, WithoutADeleterTheMemoryIsTheCallers) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    std::vector<int64_t> values{4, 5};
    const TensorHandle x =
        interop::from_external({values.data(), Shape{2}, DType::I64, {}, nullptr}, device);
    EXPECT_EQ(values_of<int64_t>(x), (std::vector<int64_t>{4, 5}));
  }
}

TEST(FromExternal, AnEmptyShapeNeedsNoData) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    int deleted = 0;
    {
      const TensorHandle x = interop::from_external(
          {nullptr, Shape{0, 3}, DType::F32, {}, [&](void*) { ++deleted; }}, device);
      EXPECT_EQ(x.shape(), (Shape{0, 3}));
    }
    EXPECT_EQ(deleted, 1);
  }
}

TEST(FromExternal, RefusesBadLayoutsAndReleasesTheMemory) {
  struct Case {
    Shape shape;
    std::vector<int64_t> strides;
    std::string what;
  };
  const Case cases[] = {{Shape{}, {}, "rank 0"},
                        {Shape{2, -1}, {}, "[2, -1]"},
                        {Shape{2, 2}, {1}, "1 strides for shape [2, 2]"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Allocation allocation{{1, 2, 3, 4}};
    try {
      interop::from_external(allocation.memory(c.shape, c.strides), Device::ndarray());
      ADD_FAILURE() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("[from_external] ", 0), 0u) << message;
      EXPECT_NE(message.find(c.what), std::string::npos) << message;
    }
    EXPECT_EQ(allocation.deleted, 1);
  }
}

}  // namespace
}  // namespace ember::test
