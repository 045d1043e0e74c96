// cuDNN (libcudnn.so.9), the cuda backend's convolutions, opened at run time apart from the
// driver, NVRTC and cuBLASLt (cuda_api.h): a machine without it still runs every op, its
// convolutions as column matrices and cuBLASLt products. cudnn.h, found at build time
// (EMBER_WITH_CUDNN), types every entry point; a build without it never opens the library.
#pragma once

#include <cstddef>
#include <string>

#ifdef EMBER_WITH_CUDNN
#include <cudnn.h>
#endif

namespace ember::cuda {

#ifdef EMBER_WITH_CUDNN

// The entry points, each listed once: CudnnApi's members and its loader are written from this
// list. The graph ("backend") API, cuDNN 9's own, whose engine heuristics choose among every
// engine (the legacy convolution API's algorithms reach only some of them); the shim
// libcudnn.so.9 exports every entry point and opens its sub-libraries on first use.
// Laid out by hand, as cuda_api.h's lists.
// clang-format off
#define EMBER_CUDNN_FUNCTIONS(X)       \
  X(cudnnGetVersion)                   \
  X(cudnnGetErrorString)               \
  X(cudnnCreate)                       \
  X(cudnnDestroy)                      \
  X(cudnnSetStream)                    \
  X(cudnnBackendCreateDescriptor)      \
  X(cudnnBackendDestroyDescriptor)     \
  X(cudnnBackendSetAttribute)          \
  X(cudnnBackendGetAttribute)          \
  X(cudnnBackendFinalize)              \
  X(cudnnBackendExecute)
// clang-format on

struct CudnnApi {
#define EMBER_CUDNN_MEMBER(name) decltype(&::name) name = nullptr;
  EMBER_CUDNN_FUNCTIONS(EMBER_CUDNN_MEMBER)
#undef EMBER_CUDNN_MEMBER
  /// cudnnGetVersion's answer: 91900 for 9.19.0.
  std::size_t version = 0;
};

#else

/// Without cudnn.h at build time: nothing to call (load_cudnn always says why).
struct CudnnApi {};

#endif

/// cuDNN, opened on the first call: libcudnn.so.<the headers' major version> by name first (so
/// LD_LIBRARY_PATH, where PyTorch's pip wheels put theirs, wins), then in the toolkit's folders.
/// nullptr when it is not there, lacks an entry point, is of another major version than the
/// headers, or ember was built without cudnn.h; the reason in *why. Opening creates nothing on
/// a GPU. Thread-safe; the answer never changes within a process.
const CudnnApi* load_cudnn(std::string* why);

/// "9.19.0" for cudnnGetVersion's 91900 (cuDNN 8 counted 8907 for 8.9.7).
std::string cudnn_version_text(std::size_t version);

}  // namespace ember::cuda
