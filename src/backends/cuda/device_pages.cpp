#include "backends/cuda/device_pages.h"

#include <new>

namespace ember::cuda {

std::byte* DevicePages::take(std::size_t bytes, std::size_t /*alignment*/) {
  // cuMemAlloc aligns every allocation to 256 bytes at least, above the pools' 64.
  gpu_->make_current();
  CUdeviceptr address = 0;
  const CUresult result = gpu_->api().cuMemAlloc(&address, bytes);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) throw std::bad_alloc();
  gpu_->check(result, "cuMemAlloc");
  return reinterpret_cast<std::byte*>(address);
}

void DevicePages::give_back(std::byte* block, std::size_t /*bytes*/,
                            std::size_t /*alignment*/) noexcept {
  // Errors are not reported here (a free must not throw); a lost context reports itself on the
  // next op.
  const Api& api = gpu_->api();
  try {
    gpu_->make_current();
    queue_->drain();
  } catch (...) {
    return;  // a poisoned device: its memory goes with the process
  }
  api.cuStreamSynchronize(gpu_->stream());
  api.cuMemFree(device_address(block));
}

}  // namespace ember::cuda
