#include "backends/cuda/gpu_context.h"

#include <mutex>
#include <string>

#include "ember/error.h"

namespace ember::cuda {
namespace {

/// The errors after which the context cannot run anything again (the CUDA programming guide's
/// "sticky" errors): the process must not reuse the device.
bool is_sticky(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

std::mutex poison_mutex;

}  // namespace

GpuContext::GpuContext(const Api& api, int index)
    : api_(api), name_("cuda:" + std::to_string(index)) {
  check(api_.cuDeviceGet(&device_, index), "cuDeviceGet");
  check(api_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  try {
    make_current();
    check(api_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    int major = 0;
    int minor = 0;
    check(api_.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_),
          "cuDeviceGetAttribute");
    check(api_.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_),
          "cuDeviceGetAttribute");
    check(api_.cuDeviceGetAttribute(&multiprocessors_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                    device_),
          "cuDeviceGetAttribute");
    architecture_ = "sm_" + std::to_string(major) + std::to_string(minor);
  } catch (...) {
    api_.cuDevicePrimaryCtxRelease(device_);
    throw;
  }
}

GpuContext::~GpuContext() {
  api_.cuCtxSetCurrent(context_);
  if (stream_ != nullptr) {
    api_.cuStreamSynchronize(stream_);
    api_.cuStreamDestroy(stream_);
  }
  api_.cuDevicePrimaryCtxRelease(device_);
}

void GpuContext::make_current() const {
  check_usable();
  const CUresult result = api_.cuCtxSetCurrent(context_);
  if (result != CUDA_SUCCESS) check(result, "cuCtxSetCurrent");
}

void GpuContext::check(CUresult result, std::string_view call) const {
  if (result == CUDA_SUCCESS) return;
  const std::string what = describe(result);
  if (is_sticky(result)) {
    const std::lock_guard lock(poison_mutex);
    if (!poisoned_.load()) {
      poison_reason_ = std::string(call) + " failed: " + what;
      poisoned_.store(true);
    }
  }
  throw ExecutionError("[" + name_ + "] " + std::string(call) + " failed: " + what);
}

void GpuContext::check_usable() const {
  if (poisoned_.load(std::memory_order_relaxed))
    throw ExecutionError("[" + name_ + "] the device is poisoned: its context was lost when " +
                         poison_reason_ + "; no further work can run on it in this process");
}

void GpuContext::synchronize() const {
  make_current();
  check(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

}  // namespace ember::cuda
