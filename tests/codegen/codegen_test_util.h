// Helpers of the codegen tests: kernel sources compiled with NVRTC, and run where a GPU and its
// driver are (libcuda.so.1, opened at run time, so that the binary starts where there is none).
// Without NVRTC (no CUDA toolkit at build time) EMBER_SKIP_WITHOUT_NVRTC skips a case, saying why.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <iomanip>
#include <memory>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ember/dtype.h"
#include "ember/shape.h"
#include "ember/tensor_data.h"

#ifdef EMBER_WITH_NVRTC
#include <nvrtc.h>
#endif

namespace ember::codegen::test {

inline std::string dtype_label(const testing::TestParamInfo<DType>& info) {
  return std::string(dtype_name(info.param));
}

#ifdef EMBER_WITH_NVRTC

/// The PTX of source compiled for architecture ("compute_90"), or NVRTC's error and log.
struct Compiled {
  bool ok = false;
  std::string ptx;
  std::string log;
  /// Whether a kernel keeps anything in local memory (a per-thread stack frame, PTX's
  /// __local_depot): for ember's kernels always a slowdown, such as a by-value parameter read at
  /// run-time indices (kCudaDimsDefinition says why).
  bool uses_local_memory() const { return ptx.find("__local_depot") != std::string::npos; }
};

inline Compiled compile(const std::string& source, const std::string& name,
                        const std::string& architecture) {
  Compiled result;
  nvrtcProgram program = nullptr;
  nvrtcResult status =
      nvrtcCreateProgram(&program, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) {
    result.log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(status);
    return result;
  }
  const std::string arch_option = "--gpu-architecture=" + architecture;
  const char* options[] = {arch_option.c_str(), "-default-device"};
  status = nvrtcCompileProgram(program, 2, options);
  std::size_t log_size = 0;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    result.log.resize(log_size);
    nvrtcGetProgramLog(program, result.log.data());
    result.log.resize(log_size - 1);
  }
  if (status != NVRTC_SUCCESS) {
    result.log = std::string(nvrtcGetErrorString(status)) + "\n" + result.log;
  } else {
    std::size_t ptx_size = 0;
    nvrtcGetPTXSize(program, &ptx_size);
    result.ptx.resize(ptx_size);
    nvrtcGetPTX(program, result.ptx.data());
    result.ok = true;
  }
  nvrtcDestroyProgram(&program);
  return result;
}

inline std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

#define EMBER_SKIP_WITHOUT_NVRTC()
#else
#define EMBER_SKIP_WITHOUT_NVRTC()                                                             \
  GTEST_SKIP() << "built without NVRTC: CMake's find_package(CUDAToolkit) found no CUDA "      \
                  "toolkit with NVRTC (set CUDAToolkit_ROOT, or install one), so the kernels " \
                  "are written but not compiled"
#endif

#ifdef EMBER_WITH_NVRTC

/// The CUDA driver API, from libcuda.so.1 opened at run time (the test binary does not link it, so
/// that it starts on machines without a driver): the few entry points the tests use.
class Driver {
 public:
  using Result = int;
  using Pointer = unsigned long long;

  /// The driver with a current context on GPU 0, or null with the reason in why.
  static const Driver* get(std::string* why) {
    static Driver driver;  // lives as long as the process, as its context does
    static const std::string reason = driver.open();
    *why = reason;
    return reason.empty() ? &driver : nullptr;
  }

  /// "cuXxx failed: CUDA_ERROR_..." for a failed call, "" for success.
  std::string error(const char* call, Result result) const {
    if (result == 0) return "";
    const char* text = nullptr;
    if (get_error_string(result, &text) != 0 || text == nullptr) text = "unknown error";
    return std::string(call) + " failed: " + text + " (" + std::to_string(result) + ")";
  }

  std::string architecture() const { return architecture_; }
  int version() const { return version_; }

  Result (*module_load_data)(void** module, const void* image) = nullptr;
  Result (*module_get_function)(void** function, void* module, const char* name) = nullptr;
  Result (*module_unload)(void* module) = nullptr;
  Result (*mem_alloc)(Pointer* pointer, std::size_t bytes) = nullptr;
  Result (*mem_free)(Pointer pointer) = nullptr;
  Result (*memcpy_htod)(Pointer to, const void* from, std::size_t bytes) = nullptr;
  Result (*memcpy_dtoh)(void* to, Pointer from, std::size_t bytes) = nullptr;
  Result (*launch_kernel)(void* function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                          unsigned block_x, unsigned block_y, unsigned block_z,
                          unsigned shared_bytes, void* stream, void** parameters,
                          void** extra) = nullptr;
  Result (*ctx_synchronize)() = nullptr;

 private:
  template <typename F>
  bool load(void* library, const char* symbol, F& function, std::string& missing) {
    function = reinterpret_cast<F>(dlsym(library, symbol));
    if (function == nullptr) missing += std::string(missing.empty() ? "" : ", ") + symbol;
    return function != nullptr;
  }

  std::string open() {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr)
      return std::string("no CUDA driver: dlopen(\"libcuda.so.1\") failed: ") + dlerror();
    Result (*init)(unsigned) = nullptr;
    Result (*device_count)(int*) = nullptr;
    Result (*device_get)(int*, int) = nullptr;
    Result (*device_attribute)(int*, int, int) = nullptr;
    Result (*primary_retain)(void**, int) = nullptr;
    Result (*set_current)(void*) = nullptr;
    Result (*driver_version)(int*) = nullptr;
    std::string missing;
    load(library, "cuInit", init, missing);
    load(library, "cuDeviceGetCount", device_count, missing);
    load(library, "cuDeviceGet", device_get, missing);
    load(library, "cuDeviceGetAttribute", device_attribute, missing);
    load(library, "cuDevicePrimaryCtxRetain", primary_retain, missing);
    load(library, "cuCtxSetCurrent", set_current, missing);
    load(library, "cuDriverGetVersion", driver_version, missing);
    load(library, "cuGetErrorString", get_error_string, missing);
    load(library, "cuModuleLoadData", module_load_data, missing);
    load(library, "cuModuleGetFunction", module_get_function, missing);
    load(library, "cuModuleUnload", module_unload, missing);
    load(library, "cuMemAlloc_v2", mem_alloc, missing);
    load(library, "cuMemFree_v2", mem_free, missing);
    load(library, "cuMemcpyHtoD_v2", memcpy_htod, missing);
    load(library, "cuMemcpyDtoH_v2", memcpy_dtoh, missing);
    load(library, "cuLaunchKernel", launch_kernel, missing);
    load(library, "cuCtxSynchronize", ctx_synchronize, missing);
    if (!missing.empty()) return "libcuda.so.1 lacks " + missing;
    if (const Result r = init(0); r != 0) return "no usable GPU: " + error("cuInit", r);
    int count = 0;
    if (const Result r = device_count(&count); r != 0) return error("cuDeviceGetCount", r);
    if (count == 0) return "the CUDA driver sees no GPU";
    int device = 0;
    if (const Result r = device_get(&device, 0); r != 0) return error("cuDeviceGet", r);
    int major = 0;
    int minor = 0;
    constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    constexpr int kComputeCapabilityMinor = 76;
    device_attribute(&major, kComputeCapabilityMajor, device);
    device_attribute(&minor, kComputeCapabilityMinor, device);
    architecture_ = "compute_" + std::to_string(major) + std::to_string(minor);
    driver_version(&version_);
    void* context = nullptr;
    if (const Result r = primary_retain(&context, device); r != 0)
      return error("cuDevicePrimaryCtxRetain", r);
    if (const Result r = set_current(context); r != 0) return error("cuCtxSetCurrent", r);
    return "";
  }

  Result (*get_error_string)(Result, const char**) = nullptr;
  std::string architecture_;
  int version_ = 0;
};

/// A device buffer, freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer(const Driver& driver, std::size_t bytes) : driver_(driver) {
    status_ =
        driver.error("cuMemAlloc", driver.mem_alloc(&pointer_, std::max<std::size_t>(bytes, 1)));
  }
  ~DeviceBuffer() {
    if (status_.empty()) driver_.mem_free(pointer_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  const std::string& status() const { return status_; }
  Driver::Pointer& pointer() { return pointer_; }

 private:
  const Driver& driver_;
  Driver::Pointer pointer_ = 0;
  std::string status_;
};

/// The bytes of a by-value kernel argument.
template <typename T>
std::vector<std::byte> argument_bytes(const T& value) {
  std::vector<std::byte> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

/// Runs the compiled kernel name of ptx with the arguments (pointers to inputs' copies on the
/// device, pointers to outputs, long long n, then extra by value in order) and returns the
/// outputs, each of shape and its dtype, n = shape's element count; throws std::runtime_error
/// naming the driver call that failed.
inline std::vector<TensorData> run_on_gpu(const Driver& driver, const std::string& ptx,
                                          const std::string& name,
                                          const std::vector<TensorData>& inputs,
                                          const std::vector<DType>& outputs, const Shape& shape,
                                          const std::vector<std::vector<std::byte>>& extra) {
  const auto check = [&](const char* call, Driver::Result result) {
    if (const std::string e = driver.error(call, result); !e.empty()) throw std::runtime_error(e);
  };
  void* module = nullptr;
  check("cuModuleLoadData", driver.module_load_data(&module, ptx.c_str()));
  struct Unload {
    const Driver& driver;
    void* module;
    ~Unload() { driver.module_unload(module); }
  } unload{driver, module};
  void* function = nullptr;
  check("cuModuleGetFunction", driver.module_get_function(&function, module, name.c_str()));

  long long n = shape.num_elements();
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  const auto buffer = [&](std::size_t bytes) -> DeviceBuffer& {
    buffers.push_back(std::make_unique<DeviceBuffer>(driver, bytes));
    if (!buffers.back()->status().empty()) throw std::runtime_error(buffers.back()->status());
    return *buffers.back();
  };
  for (const TensorData& input : inputs) {
    DeviceBuffer& b = buffer(input.bytes().size());
    check("cuMemcpyHtoD",
          driver.memcpy_htod(b.pointer(), input.bytes().data(), input.bytes().size()));
  }
  for (const DType dtype : outputs)
    buffer(static_cast<std::size_t>(n) * dtype_size(dtype));
  std::vector<void*> arguments;
  for (auto& b : buffers)
    arguments.push_back(&b->pointer());
  arguments.push_back(&n);
  std::vector<std::vector<std::byte>> by_value = extra;
  for (auto& bytes : by_value)
    arguments.push_back(bytes.data());
  constexpr unsigned kBlock = 128;
  // Fewer blocks than elements need, so that the grid-stride loop goes round.
  const auto grid = static_cast<unsigned>(std::max<long long>(1, (n + kBlock - 1) / kBlock / 2));
  check("cuLaunchKernel", driver.launch_kernel(function, grid, 1, 1, kBlock, 1, 1, 0, nullptr,
                                               arguments.data(), nullptr));
  check("cuCtxSynchronize", driver.ctx_synchronize());
  std::vector<TensorData> results;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(outputs[k]);
    std::vector<std::byte> out(bytes);
    check("cuMemcpyDtoH",
          driver.memcpy_dtoh(out.data(), buffers[inputs.size() + k]->pointer(), bytes));
    results.emplace_back(std::move(out), shape, outputs[k]);
  }
  return results;
}

/// Whether e, thrown by run_on_gpu, says the driver is older than NVRTC's PTX.
inline bool is_unsupported_ptx(const std::runtime_error& e) {
  return std::string(e.what()).find("(222)") != std::string::npos;  // UNSUPPORTED_PTX_VERSION
}

#endif  // EMBER_WITH_NVRTC

/// Tolerances of the GPU's values against ndarray's: |gpu - ref| <= rtol |ref| + atol scale,
/// scale 1 + the largest finite input. CUDA's math library is within a few ulp, as libm is; an
/// f16 or bf16 result may round to the neighbour of ndarray's.
struct Bound {
  double rtol;
  double atol;
};
inline Bound bound_for(DType dtype) {
  switch (dtype) {
    case DType::F64:
      return {1e-12, 1e-14};
    case DType::F32:
      return {4e-6, 1e-7};
    case DType::F16:
      return {1e-3, 1e-6};
    default:
      return {8e-3, 1e-6};
  }
}

/// Adds a failure for each of the first few elements where got and want (of one shape) differ
/// beyond bound (NaN matching NaN; Bool results exactly), naming label and the element's inputs
/// (each of got's element count: broadcast already); returns how many differ.
inline int count_mismatches(const std::string& label, const TensorData& got, const TensorData& want,
                            const std::vector<TensorData>& inputs, Bound bound) {
  const std::vector<double> g = got.to_vector<double>();
  const std::vector<double> r = want.to_vector<double>();
  std::vector<std::vector<double>> in;
  for (const TensorData& input : inputs)
    in.push_back(input.to_vector<double>());
  int mismatches = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    double scale = 1.0;
    for (const auto& values : in)
      if (std::isfinite(values[i])) scale = std::max(scale, 1.0 + std::abs(values[i]));
    const bool same = (std::isnan(g[i]) && std::isnan(r[i])) || g[i] == r[i] ||
                      std::abs(g[i] - r[i]) <= bound.rtol * std::abs(r[i]) + bound.atol * scale;
    if (!same && ++mismatches <= 5) {
      std::ostringstream text;
      text.precision(17);
      for (std::size_t k = 0; k < in.size(); ++k)
        text << (k == 0 ? "" : ", ") << in[k][i];
      ADD_FAILURE() << label << " element " << i << " (" << text.str() << "): GPU "
                    << std::setprecision(17) << g[i] << ", expected " << r[i];
    }
  }
  return mismatches;
}

}  // namespace ember::codegen::test
