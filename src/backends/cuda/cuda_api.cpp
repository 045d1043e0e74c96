#include "backends/cuda/cuda_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "ember/error.h"

namespace ember::cuda {
namespace {

/// The toolkit's libraries carry its major version in their names: libnvrtc.so.13.
const std::string kMajor = std::to_string(CUDA_VERSION / 1000);

/// Where a toolkit library is looked for after the loader's own path: the toolkit that
/// CUDA_HOME or CUDA_PATH names, then the usual install folder.
std::vector<std::string> library_folders() {
  std::vector<std::string> folders = {""};
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* root = std::getenv(variable); root != nullptr && *root != '\0')
      folders.push_back(std::string(root) + "/lib64/");
  }
  folders.push_back("/usr/local/cuda/lib64/");
  return folders;
}

}  // namespace

void* open_cuda_library(const std::vector<std::string>& names, std::string* why) {
  std::string errors;
  for (const std::string& folder : library_folders()) {
    for (const std::string& name : names) {
      if (void* library = dlopen((folder + name).c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
      if (const char* error = dlerror(); error != nullptr && folder.empty())
        errors += std::string(errors.empty() ? "" : "; ") + error;
    }
  }
  *why = "dlopen(" + names.front() + ") failed: " + errors;
  return nullptr;
}

namespace {

template <typename F>
void find_symbol(void* library, const char* name, F& function, std::string& missing) {
  function = reinterpret_cast<F>(dlsym(library, name));
  if (function == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
}

std::string load_driver(Api& api) {
  std::string why;
  void* library = open_cuda_library({"libcuda.so.1"}, &why);
  if (library == nullptr) return "no CUDA driver: " + why;
  decltype(&cuGetProcAddress) get_proc_address = nullptr;
  std::string missing;
  find_symbol(library, "cuGetProcAddress_v2", get_proc_address, missing);
  if (get_proc_address == nullptr)
    return "the CUDA driver is older than CUDA 12 (no cuGetProcAddress_v2); ember's cuda backend "
           "was built with CUDA " +
           std::to_string(CUDA_VERSION / 1000) + "." + std::to_string(CUDA_VERSION % 1000 / 10);
#define EMBER_CUDA_FIND(name)                                                    \
  if (get_proc_address(#name, reinterpret_cast<void**>(&api.name), CUDA_VERSION, \
                       CU_GET_PROC_ADDRESS_DEFAULT, nullptr) != CUDA_SUCCESS ||  \
      !api.name)                                                                 \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
  EMBER_CUDA_DRIVER_FUNCTIONS(EMBER_CUDA_FIND)
#undef EMBER_CUDA_FIND
  if (!missing.empty())
    return "the CUDA driver lacks " + missing + " (a driver for CUDA " + kMajor +
           " or newer is needed)";
  if (const CUresult result = api.cuInit(0); result != CUDA_SUCCESS)
    return "cuInit failed: " + describe(result);
  return "";
}

template <typename LoadAll>
std::string load_toolkit_library(const std::string& stem, const LoadAll& load_all) {
  std::string why;
  void* library = open_cuda_library({stem + ".so." + kMajor, stem + ".so"}, &why);
  if (library == nullptr)
    return "no " + stem + " (CUDA " + kMajor + "'s; set CUDA_HOME or LD_LIBRARY_PATH): " + why;
  std::string missing;
  load_all(library, missing);
  return missing.empty() ? "" : stem + " lacks " + missing;
}

std::string load(Api& api) {
  std::string why = load_driver(api);
  if (why.empty()) {
    why = load_toolkit_library("libnvrtc", [&](void* library, std::string& missing) {
#define EMBER_CUDA_FIND(name) find_symbol(library, #name, api.name, missing);
      EMBER_NVRTC_FUNCTIONS(EMBER_CUDA_FIND)
    });
  }
  if (why.empty()) {
    why = load_toolkit_library("libcublasLt", [&](void* library, std::string& missing) {
      EMBER_CUBLASLT_FUNCTIONS(EMBER_CUDA_FIND)
#undef EMBER_CUDA_FIND
    });
  }
  return why;
}

struct Loaded {
  Api api;
  std::string why;
  Loaded() : why(load(api)) {}
};

const Loaded& loaded() {
  static const Loaded instance;  // the libraries stay open for the process's life
  return instance;
}

[[noreturn]] void fail(std::string_view device, std::string_view call, const std::string& what) {
  throw ExecutionError("[" + std::string(device) + "] " + std::string(call) + " failed: " + what);
}

}  // namespace

const Api* load_api(std::string* why) {
  const Loaded& l = loaded();
  *why = l.why;
  return l.why.empty() ? &l.api : nullptr;
}

std::string describe(CUresult result) {
  const Api& api = loaded().api;
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName == nullptr || api.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = "CUDA error";
  if (api.cuGetErrorString == nullptr || api.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = "no description";
  return std::string(name) + " (" + std::to_string(static_cast<int>(result)) + "): " + text;
}

void check(CUresult result, std::string_view call, std::string_view device) {
  if (result != CUDA_SUCCESS) fail(device, call, describe(result));
}

void check(nvrtcResult result, std::string_view call, std::string_view device) {
  if (result != NVRTC_SUCCESS) fail(device, call, loaded().api.nvrtcGetErrorString(result));
}

void check(cublasStatus_t result, std::string_view call, std::string_view device) {
  if (result != CUBLAS_STATUS_SUCCESS)
    fail(device, call, "cuBLAS status " + std::to_string(static_cast<int>(result)));
}

}  // namespace ember::cuda
