// Spec items: enumerate (DeviceType filters, remote hosts), FromIterator for Devices, PartialEq
// and Eq (with std::hash), From<&Device> for TensorCreationOptions, and sharing one context per
// physical device across threads.
#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <unordered_set>
#include <vector>

#include "backends/registry.h"
#include "core/device_context.h"
#include "device_test_util.h"
#include "ember/device.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "ember/tensor_options.h"
#include "tensor/tensor_impl.h"

namespace ember {
namespace {

using test::contains;
using test::error_message;

TEST(DeviceSpec, EnumerateNdArrayGivesItsOneDevice) {
  const Devices devices = Device::enumerate(DeviceType::NdArray);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0], Device::ndarray());
}

TEST(DeviceSpec, EnumerateABackendNotCompiledInIsEmpty) {
  EXPECT_TRUE(Device::enumerate(DeviceType::Rocm).empty());
  EXPECT_EQ(Device::enumerate(DeviceType::Flex).empty(),
            !backend::is_compiled(DeviceType::Kind::Flex));
  EXPECT_EQ(Device::enumerate(DeviceType::Cpu).empty(),
            !backend::is_compiled(DeviceType::Kind::Cpu));
}

TEST(DeviceSpec, EnumerateFiltersCombineWithOr) {
  const Devices devices = Device::enumerate(DeviceType::Rocm | DeviceType::NdArray);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0], Device::ndarray());
  EXPECT_EQ(Device::enumerate(DeviceType::NdArray | DeviceType::NdArray).size(), 1u)
      << "a type named twice lists its devices once";
}

TEST(DeviceSpec, EnumerateAllListsEveryLocalDevice) {
  const Devices devices = Device::enumerate(DeviceFilter::all());
  std::vector<Device> expected;
  if (backend::is_compiled(DeviceType::Kind::Cpu)) expected.push_back(Device::cpu());
  // The GPUs come next (none on a machine without one: tests/cuda checks their enumeration).
  for (const Device& gpu : Device::enumerate(DeviceType::Cuda))
    expected.push_back(gpu);
  // Then the graphics APIs' devices in DeviceFilter::all()'s order (lavapipe's wgpu:cpu,
  // vulkan:cpu and webgpu:cpu where mesa-vulkan-drivers is installed).
  for (const DeviceType& type : {DeviceType::Wgpu, DeviceType::Vulkan, DeviceType::WebGpu})
    for (const Device& device : Device::enumerate(type))
      expected.push_back(device);
  if (backend::is_compiled(DeviceType::Kind::Flex)) expected.push_back(Device::flex());
  expected.push_back(Device::ndarray());
  // libtorch's, after: its CPU device, then a libtorch_cuda:i per GPU LibTorch's CUDA sees.
  if (backend::is_compiled(DeviceType::Kind::LibTorch)) expected.push_back(Device::libtorch());
  for (const Device& gpu : Device::enumerate(DeviceType::LibTorch)) {
    if (gpu != Device::libtorch()) expected.push_back(gpu);
  }
  ASSERT_EQ(devices.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(devices[i], expected[i]);
  const DeviceFilter all = DeviceFilter::all();
  for (const DeviceType& type : all.types()) {
    EXPECT_NE(type.kind(), DeviceType::Kind::Remote);
  }
}

TEST(DeviceSpec, EnumerateRemoteNamesTheOptionOrTheUnreachableHost) {
  // Nothing listens on port 1: compiled in, the remote backend says it cannot connect there.
  const RemoteHost host = RemoteHost::tcp("127.0.0.1:1");
  const auto enumerate = [&] { Device::enumerate(DeviceType::NdArray | DeviceType::remote(host)); };
  if (backend::is_compiled(DeviceType::Kind::Remote)) {
    EXPECT_TRUE(contains(error_message<ExecutionError>(enumerate), "127.0.0.1:1] cannot connect"));
    EXPECT_THROW(host.devices(), ExecutionError);
  } else {
    EXPECT_TRUE(contains(error_message<ConfigError>(enumerate), "EMBER_BACKEND_REMOTE"));
    EXPECT_THROW(host.devices(), ConfigError);
  }
}

TEST(DeviceSpec, RemoteHostTcpValidatesTheAddress) {
  EXPECT_EQ(RemoteHost::tcp("127.0.0.1:1").address(), "127.0.0.1:1");
  EXPECT_EQ(RemoteHost::tcp("[::1]:65535").address(), "[::1]:65535");
  const RemoteHost host = RemoteHost::tcp("gpu-box:7070").with_credential("secret");
  EXPECT_EQ(host.credential(), "secret");
  EXPECT_EQ(host, RemoteHost::tcp("gpu-box:7070")) << "hosts compare by address";
  for (const char* bad : {"", "gpu-box", ":80", "gpu-box:", "gpu-box:0", "gpu-box:65536",
                          "gpu-box:http", "gpu-box:-1", "gpu-box:80 "}) {
    const std::string message = error_message<InvalidArgument>([&] { RemoteHost::tcp(bad); });
    EXPECT_TRUE(contains(message, "[RemoteHost::tcp]")) << bad;
    EXPECT_TRUE(contains(message, "'" + std::string(bad) + "'")) << bad;
  }
}

TEST(DeviceSpec, DevicesFromIteratorKeepsOrderAndAutodiffMapsEveryDevice) {
  const Devices devices(std::vector<Device>{Device(CudaDevice{1}), Device::ndarray()});
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].as_dispatch(), DispatchDevice(CudaDevice{1}));
  const Devices autodiff = devices.autodiff();
  ASSERT_EQ(autodiff.size(), 2u);
  for (const Device& d : autodiff)
    EXPECT_TRUE(d.is_autodiff()) << d;
  EXPECT_EQ(autodiff[1], Device::ndarray());
}

TEST(DeviceSpec, EqualityIgnoresAutodiffAndCheckpointing) {
  const Device plain = Device::ndarray();
  const Device checkpointed = plain.autodiff().gradient_checkpointing();
  EXPECT_EQ(plain, checkpointed);
  EXPECT_FALSE(plain != plain.autodiff());
  EXPECT_NE(plain, Device(CpuDevice{})) << "ndarray and cpu are different hardware";
  EXPECT_NE(Device(CudaDevice{0}), Device(CudaDevice{1}));
  EXPECT_NE(Device(WgpuDevice{WgpuDevice::Api::Vulkan}), Device(WgpuDevice{WgpuDevice::Api::Wgpu}));
}

TEST(DeviceSpec, HashAgreesWithEquality) {
  const std::hash<Device> hash;
  const Device plain = Device::ndarray();
  EXPECT_EQ(hash(plain), hash(plain.autodiff().gradient_checkpointing()));
  std::unordered_set<Device> set;
  for (const DispatchDevice& d : test::sample_descriptors()) {
    set.insert(Device(d));
    set.insert(Device(d).autodiff());
  }
  EXPECT_EQ(set.size(), test::sample_descriptors().size());
}

TEST(DeviceSpec, TensorCreationOptionsComeFromADevice) {
  const Device device = Device::ndarray().autodiff();
  const TensorCreationOptions options = device;
  EXPECT_EQ(options.device, device);
  EXPECT_TRUE(options.device.is_autodiff());
  EXPECT_EQ(options.dtype, std::nullopt);
  const TensorCreationOptions half = options.with_dtype(FloatDType::F16);
  EXPECT_EQ(half.dtype, DType::F16);
  EXPECT_EQ(options.dtype, std::nullopt) << "with_dtype returns a copy";
  EXPECT_EQ(Tensor<1>::zeros({2}, half).dtype(), DType::F16);
}

TEST(DeviceSpec, OnePhysicalDeviceHasOneContextAcrossThreads) {
  constexpr int kThreads = 8;
  std::vector<std::shared_ptr<detail::DeviceContext>> seen(kThreads);
  std::vector<std::shared_ptr<detail::DeviceContext>> of_tensors(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      seen[i] = detail::DeviceContext::of(NdArrayDevice{});
      of_tensors[i] = Tensor<1>::ones({4}, Device::ndarray()).handle().impl()->context;
    });
  }
  for (std::thread& t : threads)
    t.join();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(seen[i], seen[0]);
    EXPECT_EQ(of_tensors[i], seen[0]);
  }
}

}  // namespace
}  // namespace ember
