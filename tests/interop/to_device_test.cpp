// to_device between the host backends: without a copy where the target computes on foreign host
// memory (flex, cpu), through the host otherwise (ndarray).
#include <gtest/gtest.h>

#include <vector>

#include "ember/ember.h"
#include "interop_test_util.h"

namespace ember::test {
namespace {

TEST(ToDeviceSharing, MovesBetweenHostBackendsWithoutACopy) {
  for (const Device& from : host_devices()) {
    for (const Device& to : sharing_devices()) {
      SCOPED_TRACE(name_of(from) + " -> " + name_of(to));
      const auto x =
          Tensor<2>::from_data(TensorData(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}), from);
      auto t = x.transpose();  // a strided view on flex and cpu
      const Tensor<2> y = t.to_device(to);
      EXPECT_EQ(y.device(), to);
      EXPECT_EQ(values_of<float>(y.handle()), (std::vector<float>{1, 3, 2, 4}));
      EXPECT_EQ(data_pointer(y.handle()), data_pointer(t.handle()));
      t = Tensor<2>();  // y keeps the memory alive
      EXPECT_EQ(values_of<float>(y.handle()), (std::vector<float>{1, 3, 2, 4}));
    }
  }
}

TEST(ToDeviceSharing, CopiesOntoNdarray) {
  for (const Device& from : host_devices()) {
    SCOPED_TRACE(name_of(from));
    const auto x = Tensor<1>::from_floats({1, 2}, from);
    const Tensor<1> y = x.to_device(Device::ndarray());
    EXPECT_EQ(values_of<float>(y.handle()), (std::vector<float>{1, 2}));
    if (!(from == Device::ndarray())) {
      EXPECT_NE(data_pointer(y.handle()), data_pointer(x.handle()));
    }
  }
}

}  // namespace
}  // namespace ember::test
