#include "backends/cuda/kernel_cache.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "ember/error.h"

namespace ember::cuda {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::string cache_folder() {
  const std::string chosen = environment("EMBER_CACHE_DIR");
  if (chosen == "off") return "";
  if (!chosen.empty()) return chosen + "/cuda";
  if (const std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return xdg + "/ember/cuda";
  if (const std::string home = environment("HOME"); !home.empty())
    return home + "/.cache/ember/cuda";
  return "";
}

/// FNV-1a, 64 bits: the file name of a key. A collision is harmless: the file holds its whole
/// key, compared before its code is used.
uint64_t hash_of(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string hex(uint64_t value) {
  std::ostringstream out;
  out << std::hex << value;
  return out.str();
}

/// The file of a key: the key's length (8 bytes), the key, then the machine code.
std::string read_cached(const std::string& path, const std::string& key) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return "";
  uint64_t length = 0;
  if (!file.read(reinterpret_cast<char*>(&length), sizeof length) || length != key.size())
    return "";
  std::string stored(key.size(), '\0');
  if (!file.read(stored.data(), static_cast<std::streamsize>(stored.size())) || stored != key)
    return "";
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

/// Writes through a temporary file renamed into place, so that a process reading the cache never
/// sees half a file. A failure leaves the cache without the entry (it is only a cache).
void write_cached(const std::string& folder, const std::string& path, const std::string& key,
                  const std::string& code) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return;
  const std::string temporary = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    const uint64_t length = key.size();
    file.write(reinterpret_cast<const char*>(&length), sizeof length);
    file.write(key.data(), static_cast<std::streamsize>(key.size()));
    file.write(code.data(), static_cast<std::streamsize>(code.size()));
    if (!file) {
      std::filesystem::remove(temporary, error);
      return;
    }
  }
  std::filesystem::rename(temporary, path, error);
  if (error) std::filesystem::remove(temporary, error);
}

}  // namespace

KernelCache::KernelCache(std::shared_ptr<const GpuContext> gpu)
    : gpu_(std::move(gpu)), folder_(cache_folder()) {
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
  const std::string key = compiler_ + source;
  const std::string path = folder_.empty() ? "" : folder_ + "/" + hex(hash_of(key)) + ".cubin";
  if (!path.empty()) {
    if (std::string code = read_cached(path, key); !code.empty()) return code;
  }
  std::string code = compile(source);
  if (!path.empty()) write_cached(folder_, path, key, code);
  return code;
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
