#include "backends/cuda/kernel_cache.h"

#include <string>

#include "ember/error.h"

namespace ember::cuda {

KernelCache::KernelCache(std::shared_ptr<const GpuContext> gpu)
    : gpu_(std::move(gpu)), disk_("cuda", ".cubin") {
  int major = 0;
  int minor = 0;
  check(gpu_->api().nvrtcVersion(&major, &minor), "nvrtcVersion", gpu_->name());
  compiler_ = "nvrtc " + std::to_string(major) + "." + std::to_string(minor) + " " +
              gpu_->architecture() + "\n";
}

KernelCache::~KernelCache() {
  try {
    gpu_->make_current();
  } catch (...) {
    return;  // a poisoned device: its modules go with the process
  }
  for (auto& [source, module] : modules_)
    gpu_->api().cuModuleUnload(module.module);
}

CUfunction KernelCache::function(const std::string& source, const std::string& kernel_name) {
  const std::lock_guard lock(mutex_);
  Module& module = module_of(source);
  if (const auto it = module.functions.find(kernel_name); it != module.functions.end())
    return it->second;
  CUfunction function = nullptr;
  gpu_->check(gpu_->api().cuModuleGetFunction(&function, module.module, kernel_name.c_str()),
              "cuModuleGetFunction(" + kernel_name + ")");
  module.functions.emplace(kernel_name, function);
  return function;
}

int KernelCache::compilations() const {
  const std::lock_guard lock(mutex_);
  return compilations_;
}

KernelCache::Module& KernelCache::module_of(const std::string& source) {
  if (const auto it = modules_.find(source); it != modules_.end()) return it->second;
  const std::string code = machine_code(source);
  gpu_->make_current();
  Module module;
  gpu_->check(gpu_->api().cuModuleLoadData(&module.module, code.data()), "cuModuleLoadData");
  return modules_.emplace(source, std::move(module)).first->second;
}

std::string KernelCache::machine_code(const std::string& source) {
  return disk_.load_or_compile(compiler_ + source, [&] { return compile(source); });
}

std::string KernelCache::compile(const std::string& source) {
  const Api& api = gpu_->api();
  const std::string& device = gpu_->name();
  nvrtcProgram program = nullptr;
  check(api.nvrtcCreateProgram(&program, source.c_str(), "ember.cu", 0, nullptr, nullptr),
        "nvrtcCreateProgram", device);
  const std::string architecture = "--gpu-architecture=" + gpu_->architecture();
  // Never --use_fast_math: the kernels compute the formulas as the CPU backends do.
  const char* options[] = {architecture.c_str(), "--std=c++17", "-default-device"};
  const nvrtcResult compiled = api.nvrtcCompileProgram(program, 3, options);
  std::string code;
  if (compiled == NVRTC_SUCCESS) {
    std::size_t size = 0;
    api.nvrtcGetCUBINSize(program, &size);
    code.resize(size);
    api.nvrtcGetCUBIN(program, code.data());
  } else {
    std::size_t size = 0;
    std::string log;
    if (api.nvrtcGetProgramLogSize(program, &size) == NVRTC_SUCCESS && size > 1) {
      log.resize(size);
      api.nvrtcGetProgramLog(program, log.data());
    }
    api.nvrtcDestroyProgram(&program);
    throw ExecutionError("[" + device + "] NVRTC could not compile a kernel (" +
                         api.nvrtcGetErrorString(compiled) + "):\n" + log);
  }
  api.nvrtcDestroyProgram(&program);
  ++compilations_;
  return code;
}

}  // namespace ember::cuda
