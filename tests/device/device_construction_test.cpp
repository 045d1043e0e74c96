// Spec items: Device::new / as_dispatch, From<D> for Device, Default, the factories (cpu and
// flex included), Clone, Debug, and device names (Device::from_name, device_name, EMBER_DEVICE).
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>
#include <string>

#include "backends/registry.h"
#include "core/device_name.h"
#include "device_test_util.h"
#include "ember/device.h"
#include "ember/error.h"
#include "support/scoped_env.h"

namespace ember {
namespace {

using test::contains;
using test::error_message;

/// Sets (or unsets, for nullopt) EMBER_DEVICE for one test, restoring the previous value.
struct ScopedEmberDevice : test::ScopedEnv {
  explicit ScopedEmberDevice(std::optional<std::string> value)
      : ScopedEnv("EMBER_DEVICE", std::move(value)) {}
};

TEST(DeviceSpec, NewWrapsADescriptorAndAsDispatchReturnsIt) {
  for (const DispatchDevice& d : test::sample_descriptors()) {
    // Wrapping never throws, even for a backend that is not compiled in.
    const Device device(d);
    EXPECT_EQ(device.as_dispatch(), d) << d;
    EXPECT_FALSE(device.is_autodiff()) << d;
  }
}

TEST(DeviceSpec, DefaultPicksTheFirstCompiledBackendInSpecOrder) {
  const ScopedEmberDevice unset(std::nullopt);
  // Of the backends implemented so far, the spec's order is cuda (where a GPU is), vulkan, webgpu
  // and wgpu (where a GPU is: never a CPU implementation such as lavapipe), cpu, libtorch, flex,
  // ndarray.
  const bool gpu = !Device::enumerate(DeviceType::Cuda).empty();
  std::vector<Device> graphics_gpus;
  for (const DeviceType& type : {DeviceType::Vulkan, DeviceType::WebGpu, DeviceType::Wgpu})
    for (const Device& device : Device::enumerate(type))
      if (std::get<WgpuDevice>(device.as_dispatch()).kind.type() != DeviceKind::Type::Cpu)
        graphics_gpus.push_back(device);
  const Device expected = gpu                                                ? Device::cuda(0)
                          : !graphics_gpus.empty()                           ? graphics_gpus[0]
                          : backend::is_compiled(DeviceType::Kind::Cpu)      ? Device::cpu()
                          : backend::is_compiled(DeviceType::Kind::LibTorch) ? Device::libtorch()
                          : backend::is_compiled(DeviceType::Kind::Flex)     ? Device::flex()
                                                                             : Device::ndarray();
  EXPECT_EQ(Device().as_dispatch(), expected.as_dispatch());
  EXPECT_EQ(Device::default_device(), expected);
}

TEST(DeviceSpec, DefaultIsOverriddenByEmberDevice) {
  {
    const ScopedEmberDevice forced("rocm:1");
    // The override is taken: rocm is asked for, and it is not compiled in.
    const std::string message = error_message<ConfigError>([] { Device(); });
    EXPECT_TRUE(contains(message, "[EMBER_DEVICE]"));
    EXPECT_TRUE(contains(message, "EMBER_BACKEND_ROCM"));
  }
  const ScopedEmberDevice forced("ndarray");
  EXPECT_EQ(Device(), Device::ndarray());
}

TEST(DeviceSpec, DefaultWithMalformedEmberDeviceIsAClearError) {
  const ScopedEmberDevice forced("gpu-please");
  const std::string message = error_message<InvalidArgument>([] { Device(); });
  EXPECT_TRUE(contains(message, "[EMBER_DEVICE]"));
  EXPECT_TRUE(contains(message, "'gpu-please'"));
}

TEST(DeviceSpec, FactoriesOfBackendsNotCompiledInThrowConfigErrorNamingTheirOption) {
  // CMake refuses every backend but ndarray, flex, cpu, cuda, vulkan, wgpu, webgpu, remote,
  // libtorch and capture today (cmake/EmberOptions.cmake), so each of these factories must refuse;
  // a backend that lands moves its line to a test of its own.
  // Each says why there is none, and what runs those GPUs meanwhile.
  struct Case {
    const char* factory;
    std::function<Device()> make;
    const char* option;
    const char* reason;
  };
  const Case cases[] = {
      {"rocm", [] { return Device::rocm(); }, "EMBER_BACKEND_ROCM", "a HIP build"},
      {"metal", [] { return Device::metal(); }, "EMBER_BACKEND_METAL", "Metal is Apple's API"},
  };
  for (const Case& c : cases) {
    const std::string message = error_message<ConfigError>(c.make);
    EXPECT_TRUE(contains(message, "[Device::")) << c.factory;
    EXPECT_TRUE(contains(message, c.option)) << c.factory;
    EXPECT_TRUE(contains(message, c.reason)) << message;
    EXPECT_TRUE(contains(message, "Device::vulkan")) << message;
  }
}

/// A factory of an implemented backend gives its device when the backend is compiled in, else
/// a ConfigError naming the factory and the option that turns the backend on.
void expect_device_or_option(DeviceType::Kind kind, Device (*factory)(), const DispatchDevice& d,
                             const char* factory_name, const char* option) {
  if (backend::is_compiled(kind)) {
    EXPECT_EQ(factory().as_dispatch(), d);
  } else {
    const std::string message = error_message<ConfigError>([&] { factory(); });
    EXPECT_TRUE(contains(message, factory_name)) << message;
    EXPECT_TRUE(contains(message, option)) << message;
  }
}

TEST(DeviceSpec, FlexFactoryGivesTheFlexDeviceOrNamesItsOption) {
  expect_device_or_option(DeviceType::Kind::Flex, &Device::flex, FlexDevice{}, "[Device::flex]",
                          "EMBER_BACKEND_FLEX");
}

TEST(DeviceSpec, RemoteFactoryGivesTheRemoteDeviceOrNamesItsOption) {
  // Compiled in, the factory names the device without reaching its server: using it does.
  expect_device_or_option(
      DeviceType::Kind::Remote, [] { return Device::remote(RemoteHost::tcp("127.0.0.1:1")); },
      RemoteDevice{"127.0.0.1:1", 0, {}}, "[Device::remote]", "EMBER_BACKEND_REMOTE");
}

TEST(DeviceSpec, CaptureFactoryGivesTheCaptureDeviceOrNamesItsOption) {
  expect_device_or_option(DeviceType::Kind::Capture, &Device::capture, CaptureDevice{},
                          "[Device::capture]", "EMBER_BACKEND_CAPTURE");
}

TEST(DeviceSpec, CpuFactoryGivesTheCpuDeviceOrNamesItsOption) {
  expect_device_or_option(DeviceType::Kind::Cpu, &Device::cpu, CpuDevice{}, "[Device::cpu]",
                          "EMBER_BACKEND_CPU");
}

TEST(DeviceSpec, VulkanFactoryGivesTheVulkanDeviceOfTheKindOrNamesItsOption) {
  // Compiled in, the factory names the device whether or not this machine has it: using it is
  // what needs one.
  expect_device_or_option(
      DeviceType::Kind::Vulkan, [] { return Device::vulkan(); },
      WgpuDevice{WgpuDevice::Api::Vulkan, DeviceKind::default_device()}, "[Device::vulkan]",
      "EMBER_BACKEND_VULKAN");
  expect_device_or_option(
      DeviceType::Kind::Vulkan, [] { return Device::vulkan(DeviceKind::integrated_gpu(1)); },
      WgpuDevice{WgpuDevice::Api::Vulkan, DeviceKind::integrated_gpu(1)}, "[Device::vulkan]",
      "EMBER_BACKEND_VULKAN");
}

TEST(DeviceSpec, WgpuAndWebGpuFactoriesGiveTheDeviceOfTheKindOrNameTheirOption) {
  expect_device_or_option(
      DeviceType::Kind::Wgpu, [] { return Device::wgpu(DeviceKind::discrete_gpu(0)); },
      WgpuDevice{WgpuDevice::Api::Wgpu, DeviceKind::discrete_gpu(0)}, "[Device::wgpu]",
      "EMBER_BACKEND_WGPU");
  expect_device_or_option(
      DeviceType::Kind::WebGpu, [] { return Device::webgpu(); },
      WgpuDevice{WgpuDevice::Api::WebGpu, DeviceKind::default_device()}, "[Device::webgpu]",
      "EMBER_BACKEND_WEBGPU");
}

TEST(DeviceSpec, CudaFactoryGivesTheCudaDeviceOrNamesItsOption) {
  // Compiled in, the factory names the device whether or not this machine has the GPU: using it
  // is what needs one.
  expect_device_or_option(
      DeviceType::Kind::Cuda, [] { return Device::cuda(); }, CudaDevice{0}, "[Device::cuda]",
      "EMBER_BACKEND_CUDA");
  expect_device_or_option(
      DeviceType::Kind::Cuda, [] { return Device::cuda(1); }, CudaDevice{1}, "[Device::cuda]",
      "EMBER_BACKEND_CUDA");
}

TEST(DeviceSpec, LibTorchFactoriesGiveTheirDevicesOrNameTheOption) {
  expect_device_or_option(DeviceType::Kind::LibTorch, &Device::libtorch, LibTorchDevice{},
                          "[Device::libtorch]", "EMBER_BACKEND_LIBTORCH");
  // As Device::cuda: the factory names the device whether or not LibTorch sees that GPU.
  expect_device_or_option(
      DeviceType::Kind::LibTorch, [] { return Device::libtorch_cuda(1); },
      LibTorchDevice{LibTorchDevice::Target::Cuda, 1}, "[Device::libtorch_cuda]",
      "EMBER_BACKEND_LIBTORCH");
}

TEST(DeviceSpec, LibTorchMpsAndVulkanNeedALibTorchBuiltWithThem) {
  struct Case {
    Device (*make)();
    const char* factory;
    const char* device;
  };
  const Case cases[] = {{&Device::libtorch_mps, "[Device::libtorch_mps]", "MPS"},
                        {&Device::libtorch_vulkan, "[Device::libtorch_vulkan]", "Vulkan"}};
  const bool compiled = backend::is_compiled(DeviceType::Kind::LibTorch);
  for (const Case& c : cases) {
    try {
      c.make();
      // Only a LibTorch built with the device gives it (none on the machines CI runs on).
      EXPECT_TRUE(compiled) << c.factory;
    } catch (const ConfigError& e) {
      const std::string message = e.what();
      EXPECT_TRUE(contains(message, c.factory)) << message;
      EXPECT_TRUE(contains(message, compiled ? c.device : "EMBER_BACKEND_LIBTORCH")) << message;
    }
  }
}

TEST(DeviceSpec, NdArrayFactoryGivesTheNdArrayDevice) {
  EXPECT_EQ(Device::ndarray().as_dispatch(), DispatchDevice(NdArrayDevice{}));
}

TEST(DeviceSpec, DeviceIndexRejectsNegativeAndTooLargeIndices) {
  EXPECT_TRUE(contains(error_message<InvalidArgument>([] { DeviceIndex(-1); }), "-1"));
  EXPECT_TRUE(contains(error_message<InvalidArgument>([] { DeviceIndex(int64_t{1} << 32); }),
                       "4294967296"));
  EXPECT_EQ(DeviceIndex(7).value(), 7u);
  EXPECT_FALSE(DeviceIndex(0).is_default());
  EXPECT_TRUE(DeviceIndex::Default.is_default());
  EXPECT_EQ(DeviceIndex::Default.value(), 0u);
}

TEST(DeviceSpec, FromNameParsesEveryForm) {
  const std::pair<const char*, DispatchDevice> cases[] = {
      {"cpu", CpuDevice{}},
      {"flex", FlexDevice{}},
      {"ndarray", NdArrayDevice{}},
      {"capture", CaptureDevice{}},
      {"cuda", CudaDevice{0}},
      {"cuda:2", CudaDevice{2}},
      {"rocm:1", RocmDevice{1}},
      {"wgpu", WgpuDevice{}},
      {"wgpu:3", WgpuDevice{WgpuDevice::Api::Wgpu, DeviceKind::discrete_gpu(3)}},
      {"wgpu:discrete", WgpuDevice{WgpuDevice::Api::Wgpu, DeviceKind::discrete_gpu(0)}},
      {"wgpu:integrated:1", WgpuDevice{WgpuDevice::Api::Wgpu, DeviceKind::integrated_gpu(1)}},
      {"wgpu:virtual:2", WgpuDevice{WgpuDevice::Api::Wgpu, DeviceKind::virtual_gpu(2)}},
      {"wgpu:cpu", WgpuDevice{WgpuDevice::Api::Wgpu, DeviceKind::cpu()}},
      {"vulkan:1", WgpuDevice{WgpuDevice::Api::Vulkan, DeviceKind::discrete_gpu(1)}},
      {"metal", WgpuDevice{WgpuDevice::Api::Metal, DeviceKind::default_device()}},
      {"webgpu:integrated", WgpuDevice{WgpuDevice::Api::WebGpu, DeviceKind::integrated_gpu(0)}},
      {"libtorch", LibTorchDevice{LibTorchDevice::Target::Cpu, 0}},
      {"libtorch_cuda:1", LibTorchDevice{LibTorchDevice::Target::Cuda, 1}},
      {"libtorch_mps", LibTorchDevice{LibTorchDevice::Target::Mps, 0}},
      {"libtorch_vulkan", LibTorchDevice{LibTorchDevice::Target::Vulkan, 0}},
      {"remote://127.0.0.1:7070", RemoteDevice{"127.0.0.1:7070", 0, {}}},
      {"remote://gpu-box:65535/3", RemoteDevice{"gpu-box:65535", 3, {}}},
  };
  for (const auto& [name, expected] : cases) {
    EXPECT_EQ(detail::parse_device_name(name, "test"), expected) << name;
  }
}

TEST(DeviceSpec, FromNameRejectsMalformedNamesNamingThem) {
  for (const char* name : {"",
                           "garbage",
                           "cuda:",
                           "cuda:-1",
                           "cuda:+1",
                           "cuda:1:2",
                           "cuda:x",
                           "cuda:99999999999",
                           "ndarray:0",
                           "cpu:1",
                           "wgpu:cpu:0",
                           "wgpu:discrete:1:2",
                           "wgpu:fast",
                           "libtorch:1",
                           "libtorch_mps:0",
                           "remote://",
                           "remote://host",
                           "remote://:80",
                           "remote://h:0",
                           "remote://h:65536",
                           "remote://h:80/",
                           "remote://h:80/x",
                           "CUDA"}) {
    const std::string message = error_message<InvalidArgument>([&] { Device::from_name(name); });
    EXPECT_TRUE(contains(message, "[Device::from_name]")) << name;
    EXPECT_TRUE(contains(message, "'" + std::string(name) + "'")) << name;
  }
}

TEST(DeviceSpec, FromNameChecksThatTheBackendIsCompiledIn) {
  EXPECT_EQ(Device::from_name("ndarray"), Device::ndarray());
  const std::string message = error_message<ConfigError>([] { Device::from_name("rocm:1"); });
  EXPECT_TRUE(contains(message, "[Device::from_name]"));
  EXPECT_TRUE(contains(message, "EMBER_BACKEND_ROCM"));
}

TEST(DeviceSpec, DeviceNameIsTheInverseOfFromName) {
  for (const DispatchDevice& d : test::sample_descriptors()) {
    EXPECT_EQ(detail::parse_device_name(device_name(d), "test"), d) << d;
  }
}

TEST(DeviceSpec, DeviceNamesAreCanonical) {
  EXPECT_EQ(device_name(CudaDevice{3}), "cuda:3");
  EXPECT_EQ(device_name(NdArrayDevice{}), "ndarray");
  EXPECT_EQ(device_name(WgpuDevice{}), "wgpu");
  EXPECT_EQ(device_name(WgpuDevice{WgpuDevice::Api::Vulkan, DeviceKind::integrated_gpu(2)}),
            "vulkan:integrated:2");
  EXPECT_EQ(device_name(LibTorchDevice{LibTorchDevice::Target::Cuda, 1}), "libtorch_cuda:1");
  EXPECT_EQ(device_name(RemoteDevice{"h:1", 2, {}}), "remote://h:1/2");
  EXPECT_EQ(backend_name(WgpuDevice{WgpuDevice::Api::Metal, DeviceKind::cpu()}), "metal");
  EXPECT_EQ(backend_name(LibTorchDevice{LibTorchDevice::Target::Mps, 0}), "libtorch");
  EXPECT_EQ(backend_name(RemoteDevice{"h:1", 2, {}}), "remote");
}

TEST(DeviceSpec, DebugPrintsTheNameWrappedWhenAutodiffIsOn) {
  std::ostringstream plain, autodiff;
  plain << Device::ndarray();
  autodiff << Device::ndarray().autodiff();
  EXPECT_EQ(plain.str(), "ndarray");
  EXPECT_EQ(autodiff.str(), "autodiff(ndarray)");
  std::ostringstream descriptor;
  descriptor << Device(CudaDevice{1});
  EXPECT_EQ(descriptor.str(), "cuda:1");
}

TEST(DeviceSpec, CloneKeepsTheExecutionContext) {
  const Device original = Device::ndarray().autodiff().gradient_checkpointing();
  const Device copy = original;  // NOLINT: the copy is what is tested
  EXPECT_EQ(copy, original);
  EXPECT_TRUE(copy.is_autodiff());
  EXPECT_EQ(copy.gradient_checkpointing_strategy(), GradientCheckpointingStrategy::Balanced);
}

}  // namespace
}  // namespace ember
