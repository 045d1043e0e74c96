// from_dlpack: another library's memory taken in, shared where the device computes on it, its
// deleter called exactly once.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "interop_test_util.h"

namespace ember::test {
namespace {

TEST(FromDlpack, SharesTheMemoryOnFlexAndCpu) {
  for (const Device& device : sharing_devices()) {
    SCOPED_TRACE(name_of(device));
    Producer<float> producer({1, 2, 3, 4, 5, 6}, {2, 3});
    const TensorHandle x = interop::from_dlpack(&producer.managed, device);
    EXPECT_EQ(x.shape(), (Shape{2, 3}));
    EXPECT_EQ(x.dtype(), DType::F32);
    EXPECT_EQ(data_pointer(x), producer.values.data());
    producer.values[4] = 50;  // a write on the producer's side
    EXPECT_EQ(values_of<float>(x), (std::vector<float>{1, 2, 3, 4, 50, 6}));
    EXPECT_EQ(producer.deleted, 0);
  }
}

TEST(FromDlpack, CallsTheDeleterOnceWhenTheLastTensorDies) {
  for (const Device& device : sharing_devices()) {
    SCOPED_TRACE(name_of(device));
    Producer<float> producer({1, 2, 3, 4}, {4});
    TensorHandle x = interop::from_dlpack(&producer.managed, device);
    TensorHandle view = ops::slice(x, {Slice(1, 3)});  // shares x's memory
    const TensorHandle sum = ops::add(x, x);           // new memory
    // Computed now: on cpu the queued add would hold x's memory until it runs.
    EXPECT_EQ(values_of<float>(sum), (std::vector<float>{2, 4, 6, 8}));
    x = TensorHandle();
    EXPECT_EQ(producer.deleted, 0);
    EXPECT_EQ(values_of<float>(view), (std::vector<float>{2, 3}));
    view = TensorHandle();
    EXPECT_EQ(producer.deleted, 1);
    EXPECT_EQ(values_of<float>(sum), (std::vector<float>{2, 4, 6, 8}));
  }
}

TEST(FromDlpack, CopiesOntoNdarrayAndReleasesAtOnce) {
  Producer<float> producer({1, 2, 3}, {3});
  const TensorHandle x = interop::from_dlpack(&producer.managed, Device::ndarray());
  EXPECT_EQ(producer.deleted, 1);
  producer.values[0] = 10;
  EXPECT_EQ(values_of<float>(x), (std::vector<float>{1, 2, 3}));
}

TEST(FromDlpack, CopyAlwaysCopies) {
  for (const Device& device : sharing_devices()) {
    SCOPED_TRACE(name_of(device));
    Producer<float> producer({1, 2, 3}, {3});
    const TensorHandle x = interop::from_dlpack(&producer.managed, device, interop::Copy::Always);
    EXPECT_EQ(producer.deleted, 1);
    producer.values[0] = 10;
    EXPECT_EQ(values_of<float>(x), (std::vector<float>{1, 2, 3}));
  }
}

TEST(FromDlpack, CopyNeverRefusesADeviceThatCannotShare) {
  Producer<float> producer({1, 2, 3}, {3});
  try {
    interop::from_dlpack(&producer.managed, Device::ndarray(), interop::Copy::Never);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("[from_dlpack]"), std::string::npos) << message;
    EXPECT_NE(message.find("ndarray"), std::string::npos) << message;
  }
  EXPECT_EQ(producer.deleted, 1);
}

TEST(FromDlpack, TakesStridesAsAView) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    // Column-major [[1, 2, 3], [4, 5, 6]]: memory 1 4 2 5 3 6.
    Producer<float> producer({1, 4, 2, 5, 3, 6}, {2, 3}, {1, 2});
    const TensorHandle x = interop::from_dlpack(&producer.managed, device);
    EXPECT_EQ(values_of<float>(x), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  }
}

TEST(FromDlpack, TakesNegativeAndZeroStrides) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    Producer<float> producer({1, 2, 3}, {2, 3}, {0, -1});
    producer.managed.dl_tensor.data = producer.values.data() + 2;  // element [0, 0] is 3
    const TensorHandle x = interop::from_dlpack(&producer.managed, device);
    EXPECT_EQ(values_of<float>(x), (std::vector<float>{3, 2, 1, 3, 2, 1}));
  }
}

TEST(FromDlpack, HonoursTheByteOffset) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    Producer<int32_t> producer({7, 8, 9}, {2});
    producer.managed.dl_tensor.byte_offset = sizeof(int32_t);
    const TensorHandle x = interop::from_dlpack(&producer.managed, device);
    EXPECT_EQ(x.dtype(), DType::I32);
    EXPECT_EQ(values_of<int32_t>(x), (std::vector<int32_t>{8, 9}));
  }
}

TEST(FromDlpack, RoundTripsThroughToDlpack) {
  for (const Device& device : host_devices()) {
    SCOPED_TRACE(name_of(device));
    const auto x = Tensor<2, Int>::from_data(
        TensorData(std::vector<int64_t>{-1, 2, -3, 4}, Shape{2, 2}), device);
    const TensorHandle back = interop::from_dlpack(interop::to_dlpack(x.handle()), device);
    EXPECT_EQ(back.dtype(), DType::I64);
    EXPECT_EQ(values_of<int64_t>(back), (std::vector<int64_t>{-1, 2, -3, 4}));
    if (!(device == Device::ndarray())) {
      EXPECT_EQ(data_pointer(back), data_pointer(x.handle()));
    }
  }
}

TEST(FromDlpack, ReadsBoolAndUint8) {
  Producer<uint8_t> producer({1, 0, 1}, {3});
  const TensorHandle u8 = interop::from_dlpack(&producer.managed, Device::ndarray());
  EXPECT_EQ(u8.dtype(), DType::U8);
  Producer<uint8_t> bools({1, 0, 1}, {3});
  bools.managed.dl_tensor.dtype = {6, 8, 1};  // kDLBool of DLPack >= 0.8
  const TensorHandle b = interop::from_dlpack(&bools.managed, Device::ndarray());
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(values_of<bool>(b), (std::vector<bool>{true, false, true}));
}

/// Expects from_dlpack(producer's tensor) to throw InvalidArgument naming what, and to have
/// called the deleter once.
template <typename T>
void expect_refused(Producer<T>& producer, const std::string& what) {
  try {
    interop::from_dlpack(&producer.managed, Device::ndarray());
    ADD_FAILURE() << "expected InvalidArgument naming " << what;
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("[from_dlpack] ", 0), 0u) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  }
  EXPECT_EQ(producer.deleted, 1);
}

TEST(FromDlpack, RefusesAMalformedTensorAndReleasesIt) {
  {
    Producer<float> p({1}, {1});
    p.managed.dl_tensor.ndim = 0;
    expect_refused(p, "ndim 0");
  }
  {
    Producer<float> p({1}, {1});
    p.managed.dl_tensor.ndim = -1;
    expect_refused(p, "ndim -1");
  }
  {
    Producer<float> p({1}, {1});
    p.managed.dl_tensor.shape = nullptr;
    expect_refused(p, "null shape");
  }
  {
    Producer<float> p({1}, {2, -3});
    expect_refused(p, "[2, -3]");
  }
  {
    const int64_t huge = std::numeric_limits<int64_t>::max() / 2;
    Producer<float> p({1}, {huge, 4});
    expect_refused(p, "too large");
  }
  {
    Producer<float> p({1, 2}, {2}, {std::numeric_limits<int64_t>::max()});
    expect_refused(p, "does not fit in int64");
  }
  {
    Producer<float> p({1, 2}, {2});
    p.managed.dl_tensor.data = nullptr;
    expect_refused(p, "null data");
  }
  {
    Producer<float> p({1, 2}, {2});
    p.managed.dl_tensor.byte_offset = std::numeric_limits<uint64_t>::max();
    expect_refused(p, "leaves the address space");
  }
  {
    Producer<float> p({1, 2}, {2}, {-(int64_t{1} << 60)});
    expect_refused(p, "reach outside the address space");
  }
  {
    Producer<float> p({1}, {1});
    p.managed.dl_tensor.device = {kDLCUDA, 0};
    expect_refused(p, "kDLCUDA");
  }
  {
    Producer<float> p({1}, {1});
    p.managed.dl_tensor.dtype = {kDLComplex, 64, 1};
    expect_refused(p, "code 5, bits 64, lanes 1");
  }
  {
    Producer<float> p({1}, {1});
    p.managed.dl_tensor.dtype = {kDLFloat, 32, 4};
    expect_refused(p, "lanes 4");
  }
  {
    Producer<float> p({1}, {1});
    p.managed.dl_tensor.dtype = {kDLFloat, 8, 1};
    expect_refused(p, "bits 8");
  }
  {
    Producer<uint8_t> p({0, 2}, {2});
    p.managed.dl_tensor.dtype = {6, 8, 1};
    expect_refused(p, "element [1] is 2");
  }
}

TEST(FromDlpack, RefusesNull) {
  EXPECT_THROW(interop::from_dlpack(nullptr, Device::ndarray()), InvalidArgument);
}

TEST(FromDlpack, CopiesMemoryNotAlignedToItsElements) {
  for (const Device& device : sharing_devices()) {
    SCOPED_TRACE(name_of(device));
    std::vector<std::byte> bytes(sizeof(float) * 2 + 1);
    const float values[] = {1.5f, -2.5f};
    std::memcpy(bytes.data() + 1, values, sizeof(values));
    Producer<float> producer({0}, {2});
    producer.managed.dl_tensor.data = bytes.data() + 1;
    const TensorHandle x = interop::from_dlpack(&producer.managed, device);
    EXPECT_EQ(producer.deleted, 1);
    EXPECT_EQ(values_of<float>(x), (std::vector<float>{1.5f, -2.5f}));
  }
}

}  // namespace
}  // namespace ember::test
