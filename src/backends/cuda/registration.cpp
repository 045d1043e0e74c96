// The cuda backend's registration (backends/registration.h): one device per GPU the driver
// reports; none where the driver or the toolkit's libraries are missing.
#include <string>
#include <variant>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/registration.h"
#include "ember/error.h"

namespace ember::backend {
namespace {

/// The GPUs the driver reports; 0 where there is no driver (why says so).
int gpu_count(const cuda::Api* api) {
  int count = 0;
  if (api == nullptr || api->cuDeviceGetCount(&count) != CUDA_SUCCESS) return 0;
  return count;
}

std::unique_ptr<Backend> create_cuda(const DispatchDevice& d) {
  const uint32_t index = std::get<CudaDevice>(d).index;
  std::string why;
  const cuda::Api* api = cuda::load_api(&why);
  if (api == nullptr)
    throw ExecutionError("[cuda:" + std::to_string(index) + "] no CUDA device: " + why);
  const int count = gpu_count(api);
  if (static_cast<int64_t>(index) >= count)
    throw ExecutionError("[cuda:" + std::to_string(index) + "] no such GPU: the driver reports " +
                         std::to_string(count) + " (indices 0 to " + std::to_string(count - 1) +
                         ")");
  return cuda::make_cuda_backend(*api, static_cast<int>(index));
}

std::vector<DispatchDevice> enumerate_cuda() {
  std::string why;
  const int count = gpu_count(cuda::load_api(&why));
  std::vector<DispatchDevice> devices;
  for (int i = 0; i < count; ++i)
    devices.emplace_back(CudaDevice{static_cast<uint32_t>(i)});
  return devices;
}

}  // namespace

Registration cuda_registration() {
  return {DeviceType::Kind::Cuda, create_cuda, enumerate_cuda};
}

}  // namespace ember::backend
