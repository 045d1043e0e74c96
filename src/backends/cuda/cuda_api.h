// The CUDA libraries the cuda backend calls: the driver (libcuda.so.1), NVRTC (the run-time
// compiler of the kernels) and cuBLASLt (matmul). They are opened at run time, so that every
// ember program starts, and reports no CUDA device, on a machine without a GPU or its driver;
// the toolkit's headers, present at build time, type every entry point.
#pragma once

#include <cublasLt.h>
#include <cuda.h>
#include <nvrtc.h>

#include <string>
#include <string_view>
#include <vector>

namespace ember::cuda {

// The entry points, each listed once: Api's members and its loader are written from these lists.
// A driver function is looked up by its name here through cuGetProcAddress, which returns the
// version that cuda.h's declaration (the pointer's type) has.
// Laid out by hand: clang-format changed its layout of these lists from one run to the next.
// clang-format off
#define EMBER_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuInit)                            \
  X(cuDriverGetVersion)                \
  X(cuDeviceGetCount)                  \
  X(cuDeviceGet)                       \
  X(cuDeviceGetAttribute)              \
  X(cuDeviceGetName)                   \
  X(cuDeviceTotalMem)                  \
  X(cuDevicePrimaryCtxRetain)          \
  X(cuDevicePrimaryCtxRelease)         \
  X(cuCtxSetCurrent)                   \
  X(cuStreamCreate)                    \
  X(cuStreamDestroy)                   \
  X(cuStreamSynchronize)               \
  X(cuMemAlloc)                        \
  X(cuMemFree)                         \
  X(cuMemGetInfo)                      \
  X(cuMemHostAlloc)                    \
  X(cuMemFreeHost)                     \
  X(cuMemHostRegister)                 \
  X(cuMemHostUnregister)               \
  X(cuMemcpyHtoDAsync)                 \
  X(cuMemcpyDtoHAsync)                 \
  X(cuMemcpyDtoDAsync)                 \
  X(cuMemcpyPeerAsync)                 \
  X(cuMemsetD8Async)                   \
  X(cuModuleLoadData)                  \
  X(cuModuleGetFunction)               \
  X(cuModuleUnload)                    \
  X(cuLaunchKernel)                    \
  X(cuStreamBeginCapture)              \
  X(cuStreamEndCapture)                \
  X(cuStreamGetCaptureInfo)            \
  X(cuGraphInstantiateWithFlags)       \
  X(cuGraphLaunch)                     \
  X(cuGraphExecKernelNodeSetParams)    \
  X(cuGraphExecDestroy)                \
  X(cuGraphDestroy)                    \
  X(cuEventCreate)                     \
  X(cuEventRecord)                     \
  X(cuEventSynchronize)                \
  X(cuEventElapsedTime)                \
  X(cuEventDestroy)                    \
  X(cuGetErrorName)                    \
  X(cuGetErrorString)
#define EMBER_NVRTC_FUNCTIONS(X) \
  X(nvrtcVersion)                \
  X(nvrtcCreateProgram)          \
  X(nvrtcCompileProgram)         \
  X(nvrtcGetProgramLogSize)      \
  X(nvrtcGetProgramLog)          \
  X(nvrtcGetCUBINSize)           \
  X(nvrtcGetCUBIN)               \
  X(nvrtcDestroyProgram)         \
  X(nvrtcGetErrorString)
#define EMBER_CUBLASLT_FUNCTIONS(X)       \
  X(cublasLtCreate)                       \
  X(cublasLtDestroy)                      \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)          \
  X(cublasLtMatrixLayoutSetAttribute)     \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmul)
// clang-format on

struct Api {
#define EMBER_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  EMBER_CUDA_DRIVER_FUNCTIONS(EMBER_CUDA_MEMBER)
  EMBER_NVRTC_FUNCTIONS(EMBER_CUDA_MEMBER)
  EMBER_CUBLASLT_FUNCTIONS(EMBER_CUDA_MEMBER)
#undef EMBER_CUDA_MEMBER
};

/// The libraries, opened and initialized (cuInit) on the first call; nullptr when one of them
/// cannot be, with the reason in *why ("no CUDA driver: dlopen(libcuda.so.1) failed: ...").
/// Thread-safe; the answer never changes within a process.
const Api* load_api(std::string* why);

/// Throws ExecutionError "[device] call failed: CUDA_ERROR_NAME: text" unless result is success.
void check(CUresult result, std::string_view call, std::string_view device);
void check(nvrtcResult result, std::string_view call, std::string_view device);
void check(cublasStatus_t result, std::string_view call, std::string_view device);
/// "CUDA_ERROR_NAME: text" for result.
std::string describe(CUresult result);

/// The first of names that dlopen opens, looked for by the loader's own path (LD_LIBRARY_PATH,
/// the cache), then in the toolkit CUDA_HOME or CUDA_PATH names, then in /usr/local/cuda; nullptr
/// when none opens, with dlopen's reasons in *why. For the libraries opened apart from load_api
/// (cuDNN).
void* open_cuda_library(const std::vector<std::string>& names, std::string* why);

}  // namespace ember::cuda
