// The CUDA C emitter (codegen/cuda_c.h). The ops it must write come from the op table through
// ir's rules (every op ir accepts on f32 and answers in f32), not from a list here: for each, on
// every float dtype, the kernel compiles with NVRTC; where a GPU and its driver are, each kernel
// runs on special and ordinary values and matches the ndarray reference. Without NVRTC (no CUDA
// toolkit at build time) or without a GPU, those cases skip and say why.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "codegen/cuda_c.h"
#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/tensor_data.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"
#include "tensor/dispatch.h"

#ifdef EMBER_WITH_NVRTC
#include <nvrtc.h>
#endif

namespace ember::codegen::test {
namespace {

constexpr DType kFloatDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The parameters the activations run with: alpha (LeakyRelu, Elu, Celu) and Softplus's beta.
constexpr double kAlpha = 0.75;
constexpr double kBeta = 1.5;

/// Whether ir takes op on f32 inputs and gives an f32 result: the float ops of the op table.
bool is_float_op(const ir::Op& op, std::size_t arity) {
  const std::vector<ir::TensorMeta> inputs(arity, ir::TensorMeta{Shape{4}, DType::F32});
  try {
    const ir::OutputMetas outputs = ir::infer(op, inputs);
    return outputs.size() == 1 && outputs[0].dtype == DType::F32;
  } catch (const InvalidArgument&) {
    return false;
  }
}

/// Every elementwise op of the op table, each with whether the emitter must write it.
std::vector<std::pair<ir::Op, bool>> table_ops() {
  std::vector<std::pair<ir::Op, bool>> ops;
  for (const ir::UnaryOp op : ir::all_ops<ir::UnaryOp>())
    ops.emplace_back(ir::Unary{op}, is_float_op(ir::Unary{op}, 1));
  for (const ir::BinaryOp op : ir::all_ops<ir::BinaryOp>())
    ops.emplace_back(ir::Binary{op}, is_float_op(ir::Binary{op}, 2));
  for (const ir::ActivationOp op : ir::all_ops<ir::ActivationOp>()) {
    const ir::Op activation = ir::Activation{op, kAlpha, kBeta};
    ops.emplace_back(activation, is_float_op(activation, 1));
  }
  return ops;
}

/// The ops the emitter must write.
std::vector<ir::Op> float_ops() {
  std::vector<ir::Op> ops;
  for (const auto& [op, float_op] : table_ops())
    if (float_op) ops.push_back(op);
  return ops;
}

std::string kernel_name(const ir::Op& op, DType dtype) {
  return "ember_" + ir::name(op) + "_" + std::string(dtype_name(dtype));
}

std::string dtype_label(const testing::TestParamInfo<DType>& info) {
  return std::string(dtype_name(info.param));
}

// ---- the emitter's text -----------------------------------------------------------------------

TEST(CudaCEmitter, WritesTheFloatOpsOfTheTableAndRefusesTheOthers) {
  int written = 0;
  for (const auto& [op, float_op] : table_ops()) {
    for (const DType dtype : kAllDTypes) {
      const bool expected = float_op && is_float(dtype);
      const std::string label = ir::name(op) + " on " + std::string(dtype_name(dtype));
      EXPECT_EQ(has_elementwise_kernel(op, dtype), expected) << label;
      if (expected) {
        const std::string source = elementwise_kernel(op, dtype, kernel_name(op, dtype));
        EXPECT_NE(source.find("extern \"C\" __global__ void " + kernel_name(op, dtype) + "("),
                  std::string::npos)
            << label << ":\n"
            << source;
        // formulas.h's min and max, not the math library's, whose NaN rule differs.
        EXPECT_EQ(source.find("fmin"), std::string::npos) << label;
        EXPECT_EQ(source.find("fmax"), std::string::npos) << label;
        ++written;
        continue;
      }
      try {
        elementwise_kernel(op, dtype, "k");
        ADD_FAILURE() << label << ": written, but the emitter says it has no kernel for it";
      } catch (const InvalidArgument& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("[" + ir::name(op) + "]"), std::string::npos) << message;
        EXPECT_NE(message.find(std::string(dtype_name(dtype))), std::string::npos) << message;
      }
    }
  }
  EXPECT_EQ(written, static_cast<int>(float_ops().size() * std::size(kFloatDTypes)));
}

TEST(CudaCEmitter, RefusesOtherOpsAndBadKernelNames) {
  EXPECT_FALSE(has_elementwise_kernel(ir::Softmax{0}, DType::F32));
  EXPECT_THROW(elementwise_kernel(ir::Softmax{0}, DType::F32, "k"), InvalidArgument);
  EXPECT_THROW(elementwise_kernel(ir::Compare{ir::CompareOp::Equal}, DType::F32, "k"),
               InvalidArgument);
  const ir::Op exp = ir::Unary{ir::UnaryOp::Exp};
  for (const char* name : {"", "1k", "k-1", "k(", "k k", "k;"})
    EXPECT_THROW(elementwise_kernel(exp, DType::F32, name), InvalidArgument) << name;
  EXPECT_NO_THROW(elementwise_kernel(exp, DType::F32, "_Exp_1"));
  EXPECT_THROW(CudaC{DType::F16}, InvalidArgument);
  // An enumerator past the table (an op decoded from outside bytes) is no op at all.
  const ir::Op unknown[] = {ir::Unary{static_cast<ir::UnaryOp>(200)},
                            ir::Binary{static_cast<ir::BinaryOp>(200)},
                            ir::Activation{static_cast<ir::ActivationOp>(200)}};
  for (const ir::Op& op : unknown) {
    EXPECT_FALSE(has_elementwise_kernel(op, DType::F32));
    EXPECT_THROW(elementwise_kernel(op, DType::F32, "k"), InvalidArgument);
  }
}

TEST(CudaCEmitter, ConstantsAreExactHexadecimalFloatsOfTheComputeType) {
  const CudaC f32(DType::F32, "");
  f32.constant(std::numbers::sqrt2 / 2);
  f32.constant(-0.0);
  f32.constant(0.1);
  f32.constant(1e-45);  // the smallest subnormal float
  f32.lowest();
  f32.constant(kInf);
  f32.constant(kNaN);
  EXPECT_EQ(f32.statements(),
            "const float v0 = 0x1.6a09e6p-1f;\n"
            "const float v1 = -0x0p+0f;\n"
            "const float v2 = 0x1.99999ap-4f;\n"
            "const float v3 = 0x1p-149f;\n"
            "const float v4 = -0x1.fffffep+127f;\n"
            "const float v5 = __int_as_float(0x7f800000);\n"
            "const float v6 = __int_as_float(0x7fc00000);\n");
  const CudaC f64(DType::F64, "");
  f64.constant(std::numbers::sqrt2 / 2);
  f64.constant(0.1);
  f64.constant(-kInf);
  EXPECT_EQ(f64.statements(),
            "const double v0 = 0x1.6a09e667f3bcdp-1;\n"
            "const double v1 = 0x1.999999999999ap-4;\n"
            "const double v2 = __longlong_as_double(0xfff0000000000000LL);\n");
}

TEST(CudaCEmitter, PrimitivesAreOneStatementEach) {
  const CudaC m(DType::F32, "");
  const auto a = m.define("x[i]");
  const auto b = m.define("parameter");
  m.min(a, b);
  m.max(a, b);
  m.mul_add(a, b, a);
  m.add(a, b);
  m.round(a);
  m.select(m.is_nan(a), a, b);
  EXPECT_EQ(m.statements(),
            "const float v0 = x[i];\n"
            "const float v1 = parameter;\n"
            "const float v2 = v1 < v0 ? v1 : v0;\n"
            "const float v3 = v0 < v1 ? v1 : v0;\n"
            "const float v4 = fmaf(v0, v1, v0);\n"
            "const float v5 = __fadd_rn(v0, v1);\n"
            "const float v6 = rintf(v0);\n"
            "const bool v7 = isnan(v0);\n"
            "const float v8 = v7 ? v0 : v1;\n");
  const CudaC d(DType::F64, "");
  d.erfc(d.define("x[i]"));
  EXPECT_EQ(d.statements(), "const double v0 = x[i];\nconst double v1 = erfc(v0);\n");
}

// ---- NVRTC --------------------------------------------------------------------------------------

#ifdef EMBER_WITH_NVRTC

/// The PTX of source compiled for architecture ("compute_90"), or NVRTC's error and log.
struct Compiled {
  bool ok = false;
  std::string ptx;
  std::string log;
};

Compiled compile(const std::string& source, const std::string& name,
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

std::string nvrtc_version() {
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

class CudaCNvrtc : public testing::TestWithParam<DType> {};

TEST_P(CudaCNvrtc, EveryKernelCompilesForComputeCapability90) {
  EMBER_SKIP_WITHOUT_NVRTC();
#ifdef EMBER_WITH_NVRTC
  const DType dtype = GetParam();
  int compiled = 0;
  for (const ir::Op& op : float_ops()) {
    const std::string name = kernel_name(op, dtype);
    const std::string source = elementwise_kernel(op, dtype, name);
    const Compiled result = compile(source, name, "compute_90");
    EXPECT_TRUE(result.ok) << name << " does not compile:\n"
                           << result.log << "\nits source:\n"
                           << source;
    if (!result.ok) continue;
    EXPECT_NE(result.ptx.find(".entry " + name), std::string::npos) << name;
    compiled += result.ptx.size() > 1 ? 1 : 0;
  }
  EXPECT_EQ(compiled, static_cast<int>(float_ops().size()));
  std::cout << "[ codegen  ] " << compiled << " " << dtype_name(dtype)
            << " kernels compiled by NVRTC " << nvrtc_version() << "\n";
#endif
}

INSTANTIATE_TEST_SUITE_P(FloatDTypes, CudaCNvrtc, testing::ValuesIn(kFloatDTypes), dtype_label);

TEST(CudaCNvrtcProgram, KernelsOfEveryDTypeConcatenatedCompileAsOneProgram) {
  EMBER_SKIP_WITHOUT_NVRTC();
#ifdef EMBER_WITH_NVRTC
  std::string source;
  for (const DType dtype : kFloatDTypes)
    for (const ir::Op& op : float_ops())
      source += elementwise_kernel(op, dtype, kernel_name(op, dtype));
  const Compiled result = compile(source, "ember_elementwise", "compute_90");
  ASSERT_TRUE(result.ok) << result.log;
  for (const DType dtype : kFloatDTypes)
    for (const ir::Op& op : float_ops())
      EXPECT_NE(result.ptx.find(".entry " + kernel_name(op, dtype) + "("), std::string::npos)
          << kernel_name(op, dtype);
#endif
}

// ---- values on a GPU ----------------------------------------------------------------------------

#ifdef EMBER_WITH_NVRTC

/// The CUDA driver API, from libcuda.so.1 opened at run time (the test binary does not link it, so
/// that it starts on machines without a driver): the few entry points the test uses.
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

/// Runs the compiled kernel name of ptx on inputs (one or two, of one dtype and size) and
/// returns its output, or throws std::runtime_error naming the driver call that failed.
TensorData run_on_gpu(const Driver& driver, const std::string& ptx, const std::string& name,
                      const std::vector<TensorData>& inputs, double parameter) {
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

  const TensorData& first = inputs.front();
  const std::size_t bytes = first.bytes().size();
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  for (std::size_t k = 0; k <= inputs.size(); ++k) {
    buffers.push_back(std::make_unique<DeviceBuffer>(driver, bytes));
    if (!buffers.back()->status().empty()) throw std::runtime_error(buffers.back()->status());
    if (k < inputs.size())
      check("cuMemcpyHtoD",
            driver.memcpy_htod(buffers[k]->pointer(), inputs[k].bytes().data(), bytes));
  }
  long long n = first.num_elements();
  double parameter_f64 = parameter;
  auto parameter_f32 = static_cast<float>(parameter);
  std::vector<void*> arguments;
  for (auto& buffer : buffers)
    arguments.push_back(&buffer->pointer());
  arguments.push_back(&n);
  if (inputs.size() == 1)
    arguments.push_back(first.dtype() == DType::F64 ? static_cast<void*>(&parameter_f64)
                                                    : static_cast<void*>(&parameter_f32));
  constexpr unsigned kBlock = 128;
  // Fewer blocks than elements need, so that the grid-stride loop goes round.
  const auto grid = static_cast<unsigned>(std::max<long long>(1, (n + kBlock - 1) / kBlock / 2));
  check("cuLaunchKernel", driver.launch_kernel(function, grid, 1, 1, kBlock, 1, 1, 0, nullptr,
                                               arguments.data(), nullptr));
  check("cuCtxSynchronize", driver.ctx_synchronize());
  std::vector<std::byte> out(bytes);
  check("cuMemcpyDtoH", driver.memcpy_dtoh(out.data(), buffers.back()->pointer(), bytes));
  return TensorData(std::move(out), first.shape(), first.dtype());
}

/// Inputs of the one-input ops: the special values, a grid through [-30, 30] by quarters (halves
/// for round's ties), and magnitudes spread over ten decades.
std::vector<double> unary_values() {
  std::vector<double> values = {0.0,   -0.0,   1e-3,  -1e-3,  3.0,  -3.0, 25.0,  -25.0, kInf,
                                -kInf, kNaN,   1.0,   -1.0,   20.0, 20.5, -20.5, 88.5,  -88.5,
                                700.0, -700.0, 1e-40, -1e-40, 2.5,  -2.5, 1e-7,  1e6};
  for (int k = 0; k <= 240; ++k)
    values.push_back(-30.0 + 0.25 * k);
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> decade(-6.0, 4.0);
  for (int k = 0; k < 64; ++k)
    values.push_back((k % 2 == 0 ? 1.0 : -1.0) * std::pow(10.0, decade(rng)));
  return values;
}

/// Inputs of the two-input ops: every pair of some special values, then the one-input values
/// against a shuffle of themselves.
std::pair<std::vector<double>, std::vector<double>> binary_values() {
  const std::vector<double> special = {0.0,  -0.0, 1.0,  -1.0,  2.5,  -2.5, 3.0,
                                       -3.0, 25.0, kInf, -kInf, kNaN, 1e-3};
  std::vector<double> a;
  std::vector<double> b;
  for (const double x : special) {
    for (const double y : special) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  std::vector<double> shuffled = unary_values();
  std::mt19937 rng(7);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const std::vector<double> values = unary_values();
  a.insert(a.end(), values.begin(), values.end());
  b.insert(b.end(), shuffled.begin(), shuffled.end());
  return {a, b};
}

/// Tolerances of the GPU's values against ndarray's: |gpu - ref| <= rtol |ref| + atol (1 + |x|),
/// x the largest finite input. CUDA's math library is within a few ulp, as libm is; an
/// f16 or bf16 result may round to the neighbour of ndarray's.
struct Bound {
  double rtol;
  double atol;
};
Bound bound_for(DType dtype) {
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

#endif  // EMBER_WITH_NVRTC

class CudaCGpu : public testing::TestWithParam<DType> {};

TEST_P(CudaCGpu, KernelsMatchTheNdarrayReference) {
  EMBER_SKIP_WITHOUT_NVRTC();
#ifdef EMBER_WITH_NVRTC
  std::string why;
  const Driver* driver = Driver::get(&why);
  if (driver == nullptr) GTEST_SKIP() << "no GPU to run the kernels on: " << why;
  const DType dtype = GetParam();
  const Bound bound = bound_for(dtype);
  const std::vector<double> x_values = unary_values();
  const auto [a_values, b_values] = binary_values();
  const Shape x_shape{static_cast<int64_t>(x_values.size())};
  const Shape ab_shape{static_cast<int64_t>(a_values.size())};
  const TensorData x(x_values, x_shape, dtype);
  const TensorData a(a_values, ab_shape, dtype);
  const TensorData b(b_values, ab_shape, dtype);
  const Device reference = Device::ndarray();
  const auto on_reference = [&](const TensorData& data) {
    return ops::from_data(data, reference, TensorKind::Float);
  };

  int checked = 0;
  for (const ir::Op& op : float_ops()) {
    const bool binary = std::holds_alternative<ir::Binary>(op);
    const std::string name = kernel_name(op, dtype);
    const Compiled compiled =
        compile(elementwise_kernel(op, dtype, name), name, driver->architecture());
    ASSERT_TRUE(compiled.ok) << name << " for " << driver->architecture() << ": " << compiled.log;
    const auto* activation = std::get_if<ir::Activation>(&op);
    const double parameter = activation == nullptr ? 0.0 : ir::parameter_of(*activation);
    const std::vector<TensorData> inputs =
        binary ? std::vector<TensorData>{a, b} : std::vector<TensorData>{x};
    TensorData gpu;
    try {
      gpu = run_on_gpu(*driver, compiled.ptx, name, inputs, parameter);
    } catch (const std::runtime_error& e) {
      // PTX newer than the driver knows (NVRTC from a later toolkit than the driver).
      constexpr const char* kUnsupportedPtx = "(222)";
      if (std::string(e.what()).find(kUnsupportedPtx) != std::string::npos)
        GTEST_SKIP() << "the driver (CUDA " << driver->version() << ") cannot load the PTX of "
                     << "NVRTC " << nvrtc_version() << ": " << e.what();
      FAIL() << name << ": " << e.what();
    }
    const TensorData expected =
        ops::into_data(binary ? tensor::run_one(op, {on_reference(a), on_reference(b)})
                              : tensor::run_one(op, {on_reference(x)}));
    const std::vector<double> got = gpu.to_vector<double>();
    const std::vector<double> want = expected.to_vector<double>();
    const std::vector<double> in0 = inputs[0].to_vector<double>();
    const std::vector<double> in1 = binary ? inputs[1].to_vector<double>() : in0;
    int mismatches = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const double g = got[i];
      const double r = want[i];
      double scale = 1.0;
      for (const double v : {in0[i], in1[i]})
        if (std::isfinite(v)) scale = std::max(scale, 1.0 + std::abs(v));
      const bool same = (std::isnan(g) && std::isnan(r)) || g == r ||
                        std::abs(g - r) <= bound.rtol * std::abs(r) + bound.atol * scale;
      if (!same && ++mismatches <= 5) {
        std::ostringstream inputs_text;
        inputs_text.precision(17);
        inputs_text << in0[i];
        if (binary) inputs_text << ", " << in1[i];
        ADD_FAILURE() << name << "(" << inputs_text.str() << "): GPU " << std::setprecision(17) << g
                      << ", ndarray " << r;
      }
    }
    EXPECT_EQ(mismatches, 0) << name;
    ++checked;
  }
  std::cout << "[ codegen  ] " << checked << " " << dtype_name(dtype)
            << " kernels match ndarray on " << driver->architecture() << "\n";
#endif
}

INSTANTIATE_TEST_SUITE_P(FloatDTypes, CudaCGpu, testing::ValuesIn(kFloatDTypes), dtype_label);

}  // namespace
}  // namespace ember::codegen::test
