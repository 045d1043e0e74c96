#include "backends/cuda/cudnn_api.h"

#include <dlfcn.h>

#include <string>

#include "backends/cuda/cuda_api.h"

namespace ember::cuda {
namespace {

#ifdef EMBER_WITH_CUDNN
/// cudnnGetVersion's count of a major version: 10000 from cuDNN 9 (91900 is 9.19.0), 1000 before.
constexpr std::size_t kMajorUnit = CUDNN_MAJOR >= 9 ? 10000 : 1000;
#else
constexpr std::size_t kMajorUnit = 10000;
#endif

#ifdef EMBER_WITH_CUDNN

/// The reason the library cannot serve, or "".
std::string open_cudnn(CudnnApi& api) {
  // cuDNN's minor versions keep the API of their major one, which names the library.
  const std::string major = std::to_string(CUDNN_MAJOR);
  std::string why;
  void* library = open_cuda_library({"libcudnn.so." + major}, &why);
  if (library == nullptr) return why;
  std::string missing;
#define EMBER_CUDNN_FIND(name)                                            \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name)); \
  if (api.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + #name;
  EMBER_CUDNN_FUNCTIONS(EMBER_CUDNN_FIND)
#undef EMBER_CUDNN_FIND
  if (!missing.empty()) return "libcudnn.so." + major + " lacks " + missing;
  api.version = api.cudnnGetVersion();
  if (api.version / kMajorUnit != CUDNN_MAJOR)
    return "libcudnn.so." + major + " is cuDNN " + cudnn_version_text(api.version) +
           ", not of the major version of the headers ember was built with (" +
           cudnn_version_text(CUDNN_VERSION) + ")";
  return "";
}

#else

std::string open_cudnn(CudnnApi& /*api*/) {
  return "ember was built without cuDNN's headers (cudnn.h)";
}

#endif

struct OpenedCudnn {
  CudnnApi api;
  std::string why;
  OpenedCudnn() : why(open_cudnn(api)) {}
};

}  // namespace

const CudnnApi* load_cudnn(std::string* why) {
  static const OpenedCudnn loaded;  // the library stays open for the process's life
  *why = loaded.why;
  return loaded.why.empty() ? &loaded.api : nullptr;
}

std::string cudnn_version_text(std::size_t version) {
  return std::to_string(version / kMajorUnit) + "." + std::to_string(version % kMajorUnit / 100) +
         "." + std::to_string(version % 100);
}

}  // namespace ember::cuda
