// to_dlpack: ember's memory handed out without a copy, kept alive until the consumer's deleter.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ember/ember.h"
#include "interop_test_util.h"

namespace ember::test {
namespace {

Tensor<2> matrix23(const Device& device) {
  return Tensor<2>::from_data(TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3}),
                              device);
}

TEST(ToDlpack, DescribesTheTensorOnEveryHostDevice) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    DLManagedTensor* managed = interop::to_dlpack(matrix23(device).handle());
    const DLTensor& dl = managed->dl_tensor;
    EXPECT_EQ(dl.device.device_type, kDLCPU);
    EXPECT_EQ(dl.ndim, 2);
    EXPECT_EQ(std::vector<int64_t>(dl.shape, dl.shape + 2), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(std::vector<int64_t>(dl.strides, dl.strides + 2), (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(dl.dtype.code, kDLFloat);
    EXPECT_EQ(dl.dtype.bits, 32);
    EXPECT_EQ(dl.dtype.lanes, 1);
    EXPECT_EQ(dl.byte_offset, 0u);
    EXPECT_EQ(element<float>(dl, {1, 1}), 5.0f);
    managed->deleter(managed);
  }
}

TEST(ToDlpack, AWriteThroughDlpackIsSeenByTheTensor) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    const Tensor<2> x = matrix23(device);
    DLManagedTensor* managed = interop::to_dlpack(x.handle());
    element<float>(managed->dl_tensor, {0, 2}) = 30;
    EXPECT_EQ(values_of<float>(x.handle()), (std::vector<float>{1, 2, 30, 4, 5, 6}));
    managed->deleter(managed);
  }
}

TEST(ToDlpack, TheMemoryOutlivesTheTensorUntilTheDeleter) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    DLManagedTensor* managed = interop::to_dlpack(matrix23(device).handle());
    // The tensor is gone; on cpu its pool slice would be the next tensor's of that size.
    const Tensor<2> other = Tensor<2>::full({2, 3}, 9, device);
    EXPECT_EQ(values_of<float>(other.handle()), std::vector<float>(6, 9));
    EXPECT_EQ(element<float>(managed->dl_tensor, {1, 2}), 6.0f);
    managed->deleter(managed);
  }
}

TEST(ToDlpack, ComputesAQueuedValueFirst) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    // On cpu, a chain of elementwise ops is queued by the fusion decorator until it is read.
    const Tensor<2> y = matrix23(device) * 2.0 + 1.0;
    DLManagedTensor* managed = interop::to_dlpack(y.handle());
    EXPECT_EQ(element<float>(managed->dl_tensor, {0, 0}), 3.0f);
    EXPECT_EQ(element<float>(managed->dl_tensor, {1, 2}), 13.0f);
    managed->deleter(managed);
  }
}

TEST(ToDlpack, ExportsAViewWithItsStridesOverTheSameMemory) {
  for (const Device& device : sharing_devices()) {
    SCOPED_TRACE(name_of(device));
    const Tensor<2> x = matrix23(device);
    const Tensor<2> t = x.transpose();  // flex keeps it as a view: strides [1, 3]
    DLManagedTensor* managed = interop::to_dlpack(t.handle());
    const DLTensor& dl = managed->dl_tensor;
    EXPECT_EQ(std::vector<int64_t>(dl.shape, dl.shape + 2), (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(std::vector<int64_t>(dl.strides, dl.strides + 2), (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(dl.data, data_pointer(x.handle()));
    element<float>(dl, {2, 1}) = 60;  // x's [1, 2]
    EXPECT_EQ(values_of<float>(x.handle()), (std::vector<float>{1, 2, 3, 4, 5, 60}));
    managed->deleter(managed);
  }
}

TEST(ToDlpack, ExportsAnExpandedViewWithAZeroStride) {
  for (const Device& device : sharing_devices()) {
    SCOPED_TRACE(name_of(device));
    const auto row =
        Tensor<2>::from_data(TensorData(std::vector<float>{7, 8}, Shape{1, 2}), device);
    DLManagedTensor* managed = interop::to_dlpack(row.expand<2>({3, 2}).handle());
    const DLTensor& dl = managed->dl_tensor;
    EXPECT_EQ(std::vector<int64_t>(dl.strides, dl.strides + 2), (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(element<float>(dl, {2, 1}), 8.0f);
    managed->deleter(managed);
  }
}

TEST(ToDlpack, CopiesAViewWithANegativeStride) {
  for (const Device& device : sharing_devices()) {
    SCOPED_TRACE(name_of(device));
    const auto x = Tensor<1>::from_data(TensorData(std::vector<float>{1, 2, 3}, Shape{3}), device);
    DLManagedTensor* managed = interop::to_dlpack(x.flip({0}).handle());
    const DLTensor& dl = managed->dl_tensor;
    EXPECT_EQ(dl.strides[0], 1);
    EXPECT_EQ(element<float>(dl, {0}), 3.0f);
    element<float>(dl, {0}) = 30;  // a copy: x does not change
    EXPECT_EQ(values_of<float>(x.handle()), (std::vector<float>{1, 2, 3}));
    managed->deleter(managed);
  }
}

TEST(ToDlpack, DescribesEveryDtype) {
  struct Expected {
    DType dtype;
    uint8_t code;
    uint8_t bits;
  };
  // DLPack's codes: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4; Bool travels as uint8.
  const Expected table[] = {{DType::F64, 2, 64},  {DType::F32, 2, 32}, {DType::F16, 2, 16},
                            {DType::BF16, 4, 16}, {DType::I64, 0, 64}, {DType::I32, 0, 32},
                            {DType::I16, 0, 16},  {DType::I8, 0, 8},   {DType::U64, 1, 64},
                            {DType::U32, 1, 32},  {DType::U16, 1, 16}, {DType::U8, 1, 8},
                            {DType::Bool, 1, 8}};
  for (const Expected& e : table) {
    SCOPED_TRACE(dtype_name(e.dtype));
    const TensorHandle x = ops::from_data(TensorData(std::vector<double>{1, 0}, Shape{2}, e.dtype),
                                          Device::ndarray(), kind_of(e.dtype));
    DLManagedTensor* managed = interop::to_dlpack(x);
    EXPECT_EQ(managed->dl_tensor.dtype.code, e.code);
    EXPECT_EQ(managed->dl_tensor.dtype.bits, e.bits);
    EXPECT_EQ(managed->dl_tensor.dtype.lanes, 1);
    managed->deleter(managed);
  }
}

TEST(ToDlpack, RefusesAnUndefinedTensor) {
  try {
    interop::to_dlpack(TensorHandle());
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("[to_dlpack]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember::test
