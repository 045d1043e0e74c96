// A cuda device whose context is lost (here: a kernel writes to an address nothing maps, which
// leaves the driver's context unusable for the rest of the process) reports the failure as an
// ExecutionError, then says it is poisoned on every later call, never crashing the process, and
// the other devices go on working. It runs in a fresh copy of the binary: the lost context would
// otherwise be every later GPU test's.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/gpu_context.h"
#include "backends/cuda/kernel_cache.h"
#include "ember/device.h"
#include "ember/devices.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "support/fresh_process.h"

namespace ember::cuda {
namespace {

constexpr const char* kFaultSource = R"(
extern "C" __global__ void ember_test_fault() { *(volatile float*)16 = 1.0f; }
)";

/// "" when f throws an ExecutionError whose message holds expected, else what happened.
std::string expect_execution_error(const std::function<void()>& f, const std::string& expected,
                                   const std::string& what) {
  try {
    f();
  } catch (const ExecutionError& e) {
    const std::string message = e.what();
    if (message.find(expected) != std::string::npos) return "";
    return what + ": the message lacks '" + expected + "': " + message + "\n";
  }
  return what + ": no ExecutionError\n";
}

/// Loses the primary context of GPU 0, which the device's backend shares, by a faulting kernel on
/// a context of its own; returns what went wrong, or "".
std::string lose_the_context() {
  std::string why;
  const Api* api = load_api(&why);
  if (api == nullptr) return "no driver API: " + why + "\n";
  const auto gpu = std::make_shared<GpuContext>(*api, 0);
  KernelCache kernels(gpu);
  const CUfunction fault = kernels.function(kFaultSource, "ember_test_fault");
  gpu->make_current();
  gpu->check(api->cuLaunchKernel(fault, 1, 1, 1, 1, 1, 1, 0, gpu->stream(), nullptr, nullptr),
             "cuLaunchKernel");
  return expect_execution_error([&] { gpu->synchronize(); }, "cuStreamSynchronize",
                                "the faulting kernel's sync");
}

std::string device_after_a_lost_context() {
  const Device gpu = Device::cuda(0);
  const Tensor<1> x = Tensor<1>::from_floats({1, 2, 3}, gpu);
  if ((x + x).into_data().to_vector<double>() != std::vector<double>{2, 4, 6})
    return "the device computed wrong before the fault\n";
  std::string why = lose_the_context();
  why += expect_execution_error([&] { (x * 3.0).into_data(); }, "[cuda:0]",
                                "the first read after the fault");
  why += expect_execution_error([&] { (x - x).into_data(); }, "poisoned", "a later read");
  why += expect_execution_error([&] { gpu.sync(); }, "poisoned", "a later sync");
  why += expect_execution_error([&] { Tensor<1>::from_floats({4}, gpu); }, "poisoned",
                                "a later upload");
  const Tensor<1> y = Tensor<1>::from_floats({1, 2, 3}, Device::ndarray());
  if ((y + y).into_data().to_vector<double>() != std::vector<double>{2, 4, 6})
    why += "another device stopped working\n";
  return why;
}

TEST(CudaLostContext, APoisonedDeviceSaysSoOnEveryCallAndTheProcessGoesOn) {
  if (Device::enumerate(DeviceType::Cuda).empty())
    GTEST_SKIP() << "no CUDA GPU on this machine: the lost-context case runs on a machine with "
                    "one (docs/backends/cuda.md)";
  ember::test::expect_in_fresh_process(device_after_a_lost_context);
}

}  // namespace
}  // namespace ember::cuda
