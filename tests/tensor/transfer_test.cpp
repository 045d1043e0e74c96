#include "tensor/tensor_impl.h"
#include "tensor_test_util.h"

namespace ember::test {
namespace {

TEST(Transfer, ToDeviceKeepsValuesAndDtype) {
  const auto x = Tensor<1>::from_data(TensorData(std::vector<double>{1.5, -2}, Shape{2}),
                                      TensorCreationOptions(device()).with_dtype(DType::F16));
  const auto y = x.to_device(Device::ndarray());
  EXPECT_EQ(y.dtype(), DType::F16);
  EXPECT_EQ(y.shape(), Shape{2});
  EXPECT_EQ(values<float>(y), (std::vector<float>{1.5, -2}));
  EXPECT_EQ(y.device(), Device::ndarray());
}

TEST(Transfer, ToDeviceTakesTheTargetsAutodiffFlag) {
  const auto x = floats<1>({1, 2}, Shape{2});
  const auto on = x.to_device(device().autodiff());
  EXPECT_TRUE(on.device().is_autodiff());
  EXPECT_EQ(values<float>(on), (std::vector<float>{1, 2}));
  EXPECT_FALSE(on.to_device(device()).device().is_autodiff());
  EXPECT_EQ(ops::to_device(ints<1>({3}, Shape{1}).handle(), device()).dtype(), DType::I64);
}

TEST(Transfer, WithAutodiffSharesTheValues) {
  const auto x = floats<1>({1, 2}, Shape{2});
  const auto on = x.autodiff();
  EXPECT_TRUE(on.device().is_autodiff());
  EXPECT_FALSE(x.device().is_autodiff());
  EXPECT_EQ(on.handle().impl()->buffer, x.handle().impl()->buffer);
  EXPECT_FALSE(on.without_autodiff().device().is_autodiff());
}

TEST(Transfer, ResultsTakeTheFirstInputsDevice) {
  const auto plain = floats<1>({1}, Shape{1});
  const auto tracked = plain.autodiff();
  EXPECT_TRUE((tracked + plain).device().is_autodiff());
  EXPECT_FALSE((plain + tracked).device().is_autodiff());
  EXPECT_TRUE(tracked.exp().device().is_autodiff());
}

TEST(Transfer, IntoDataAndToData) {
  const auto x = ints<2>({1, 2, 3, 4}, Shape{2, 2});
  const TensorData data = x.into_data();
  EXPECT_EQ(data.shape(), (Shape{2, 2}));
  EXPECT_EQ(data.dtype(), DType::I64);
  EXPECT_EQ(data, x.into_data());
  EXPECT_EQ(data.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace ember::test
