#include "backends/libtorch/libtorch_backend.h"

#include <c10/core/InferenceMode.h>
#include <torch/version.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "backends/libtorch/aten.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/run_on_host.h"

namespace ember::libtorch {
namespace {

using backend::BufferPtr;
using backend::Operand;
using backend::Outputs;

const at::Tensor& tensor_of(const Operand& operand) {
  return static_cast<const TorchBuffer&>(*operand.buffer).tensor;
}

/// LibTorch's device for d.
at::Device torch_device(const LibTorchDevice& d) {
  switch (d.target) {
    case LibTorchDevice::Target::Cpu:
      return at::kCPU;
    case LibTorchDevice::Target::Cuda:
      return {at::kCUDA, static_cast<c10::DeviceIndex>(d.index)};
    case LibTorchDevice::Target::Mps:
      return at::kMPS;
    case LibTorchDevice::Target::Vulkan:
      break;
  }
  return at::kVulkan;
}

/// The GPUs LibTorch's CUDA sees; 0 without CUDA (a CPU-only LibTorch, or no driver). Never throws
/// (enumeration must not): a driver LibTorch cannot initialize counts as none.
int cuda_count() {
  try {
    return at::hasCUDA() ? at::detail::getCUDAHooks().getNumGPUs() : 0;
  } catch (const c10::Error&) {
    return 0;
  }
}

/// result as output meta holds it: its dtype and shape (a kernel may return a wider float, or a
/// 0-dim tensor for a reduction of the whole tensor).
at::Tensor as_output(at::Tensor result, const ir::TensorMeta& meta) {
  const at::ScalarType type = scalar_type(meta.dtype, "libtorch");
  if (result.scalar_type() != type) result = result.to(type);
  if (!result.sizes().equals(sizes_of(meta.shape))) result = result.reshape(sizes_of(meta.shape));
  return result;
}

/// f(), with LibTorch's errors as ember's: a failed allocation as std::bad_alloc (which the device
/// context reports as out of memory, with what the device holds), any other as ExecutionError
/// "[what()] LibTorch: ..." without LibTorch's backtrace. what is called on an error only: an op's
/// name is a string made on demand, and the fast path makes none.
template <typename What, typename F>
decltype(auto) translating_errors(const What& what, F&& f) {
  try {
    return f();
  } catch (const c10::Error& e) {
    const std::string message = e.what_without_backtrace();
    if (message.find("can't allocate memory") != std::string::npos ||
        message.find("out of memory") != std::string::npos)
      throw std::bad_alloc();
    throw ExecutionError("[" + std::string(what()) + "] LibTorch: " + message);
  }
}

class LibTorchBackend final : public backend::Backend {
 public:
  explicit LibTorchBackend(const LibTorchDevice& d)
      : options_(at::TensorOptions().device(torch_device(d))) {}

  std::string name() const override { return "libtorch"; }
  std::string description() const override {
    return "LibTorch " TORCH_VERSION " (ATen), device " + options_.device().str();
  }
  bool supports_dtype(DType dtype) const override { return has_scalar_type(dtype); }

  Outputs execute(const ir::Op& op, std::span<const Operand> inputs,
                  std::span<const ir::TensorMeta> outputs) override {
    // ember keeps its own tape (src/autodiff): ATen's autograd is skipped, which saves its
    // dispatch work on every op.
    const c10::InferenceMode no_autograd;
    c10::SmallVector<at::Tensor, 4> tensors;
    for (const Operand& input : inputs)
      tensors.push_back(tensor_of(input));
    const Args args{op, tensors, outputs, options_};
    const auto name = [&] { return ir::name(op); };
    Results results = translating_errors(
        name, [&] { return std::visit([&](const auto& o) { return run(o, args); }, op); });
    if (results.empty()) return ndarray::run_on_host(*this, op, inputs, outputs);
    Outputs buffers;
    translating_errors(name, [&] {
      for (std::size_t k = 0; k < results.size(); ++k)
        buffers.push_back(
            std::make_shared<TorchBuffer>(as_output(std::move(results[k]), outputs[k])));
    });
    return buffers;
  }

  BufferPtr write(const TensorData& data) override {
    return translating_errors([] { return "write"; }, [&] { return upload(data); });
  }

  TensorData read(const Operand& operand) override {
    return translating_errors([] { return "read"; }, [&] { return download(operand); });
  }

  // Zero-copy sharing with the other CPU backends and DLPack (docs/interop.md): an at::Tensor on
  // the CPU is host memory as it is, and ATen computes on foreign host memory through from_blob.

  /// The tensor's elements where it is (ATen's CPU ops are done when they return); nullopt for a
  /// GPU's tensor.
  std::optional<backend::HostMemory> share_host_memory(const Operand& operand) override {
    const at::Tensor& t = tensor_of(operand);
    if (!t.device().is_cpu()) return std::nullopt;
    return backend::HostMemory{static_cast<std::byte*>(t.data_ptr()), t.strides().vec(),
                               operand.buffer};
  }

  /// An at::Tensor over memory, holding its owner; null (the caller copies) on a GPU device, for a
  /// negative stride (ATen has none) and for the dtypes LibTorch lacks.
  BufferPtr wrap_host_memory(const backend::HostMemory& memory,
                             const ir::TensorMeta& meta) override {
    const bool negative =
        std::ranges::any_of(memory.strides, [](int64_t stride) { return stride < 0; });
    if (!options_.device().is_cpu() || negative || !has_scalar_type(meta.dtype)) return nullptr;
    return translating_errors(
        [] { return "to_device"; },
        [&] {
          const c10::InferenceMode no_autograd;
          return std::make_shared<TorchBuffer>(at::from_blob(
              memory.data, sizes_of(meta.shape), memory.strides, [owner = memory.owner](void*) {},
              at::TensorOptions().dtype(scalar_type(meta.dtype, "to_device"))));
        });
  }

  /// ATen runs CPU ops before returning; a CUDA device's work is waited for by a copy to the host,
  /// which waits for the stream it follows (LibTorch's current one, where every op went).
  void sync() override {
    if (!options_.device().is_cpu())
      translating_errors([] { return "sync"; },
                         [&] { (void)at::zeros({1}, options_).to(at::kCPU); });
  }

 private:
  BufferPtr upload(const TensorData& data) {
    const c10::InferenceMode no_autograd;
    at::Tensor host = at::empty(sizes_of(data.shape()),
                                at::TensorOptions().dtype(scalar_type(data.dtype(), "write")));
    if (!data.bytes().empty())
      std::memcpy(host.data_ptr(), data.bytes().data(), data.bytes().size());
    return std::make_shared<TorchBuffer>(host.to(options_.device()));
  }

  TensorData download(const Operand& operand) {
    const at::Tensor host = tensor_of(operand).to(at::kCPU).contiguous();
    std::vector<std::byte> bytes(host.nbytes());
    if (!bytes.empty()) std::memcpy(bytes.data(), host.data_ptr(), bytes.size());
    return TensorData(std::move(bytes), operand.meta.shape, operand.meta.dtype);
  }

  at::TensorOptions options_;
};

}  // namespace

std::unique_ptr<backend::Backend> make_libtorch_backend(const LibTorchDevice& d) {
  if (d.target == LibTorchDevice::Target::Cuda && static_cast<int>(d.index) >= cuda_count()) {
    throw ExecutionError("[" + device_name(DispatchDevice(d)) + "] no such GPU: LibTorch " +
                         TORCH_VERSION + (at::hasCUDA() ? " sees " : " has no CUDA, so sees ") +
                         std::to_string(cuda_count()) + " CUDA device(s)");
  }
  if (d.target == LibTorchDevice::Target::Cuda) {
    // An f32 op computes in f32, as on every ember device: no TF32 in cuDNN's convolutions (on by
    // default in LibTorch) nor in cuBLAS. LibTorch's setting is the process's: said in the docs.
    at::globalContext().setAllowTF32CuDNN(false);
    at::globalContext().setAllowTF32CuBLAS(false);
  }
  return std::make_unique<LibTorchBackend>(d);
}

std::vector<DispatchDevice> libtorch_devices() {
  std::vector<DispatchDevice> devices{LibTorchDevice{}};
  for (int i = 0; i < cuda_count(); ++i)
    devices.emplace_back(LibTorchDevice{LibTorchDevice::Target::Cuda, static_cast<uint32_t>(i)});
  return devices;
}

void require_buildable(const DispatchDevice& d, const char* factory) {
  const auto* device = std::get_if<LibTorchDevice>(&d);
  if (device == nullptr) return;
  const auto missing = [&](const char* what) {
    throw ConfigError("[" + std::string(factory) +
                      "] the LibTorch " TORCH_VERSION " ember is built against has no " + what +
                      " (configure with -DTorch_DIR=<a LibTorch built with it>)");
  };
  if (device->target == LibTorchDevice::Target::Mps && !at::hasMPS())
    missing("MPS device (it is built without MPS, which only macOS builds have)");
  if (device->target == LibTorchDevice::Target::Vulkan && !at::is_vulkan_available())
    missing("Vulkan device (it is built without USE_VULKAN)");
}

at::ScalarType scalar_type(DType dtype, const std::string& op) {
  switch (dtype) {
    case DType::F64:
      return at::kDouble;
    case DType::F32:
      return at::kFloat;
    case DType::F16:
      return at::kHalf;
    case DType::BF16:
      return at::kBFloat16;
    case DType::I64:
      return at::kLong;
    case DType::I32:
      return at::kInt;
    case DType::I16:
      return at::kShort;
    case DType::I8:
      return at::kChar;
    case DType::U8:
      return at::kByte;
    case DType::Bool:
      return at::kBool;
    case DType::U64:
    case DType::U32:
    case DType::U16:
      break;
  }
  throw InvalidArgument("[" + op + "] dtype " + std::string(dtype_name(dtype)) +
                        " is not supported by LibTorch " TORCH_VERSION);
}

bool has_scalar_type(DType dtype) {
  return dtype != DType::U64 && dtype != DType::U32 && dtype != DType::U16;
}

at::Tensor widened(const at::Tensor& x) {
  const at::ScalarType type = x.scalar_type();
  return type == at::kHalf || type == at::kBFloat16 ? x.to(at::kFloat) : x;
}

at::Tensor scalar_tensor(const Scalar& value, DType dtype, const at::TensorOptions& options) {
  // The common cases, where ATen's conversion is ember's, skip the host (an op's cost).
  if (value.kind == Scalar::Kind::Float && (dtype == DType::F32 || dtype == DType::F64))
    return at::scalar_tensor(value.f, options.dtype(scalar_type(dtype, "scalar")));
  if (value.kind == Scalar::Kind::Int && dtype == DType::I64)
    return at::scalar_tensor(value.i, options.dtype(at::kLong));
  const ir::TensorMeta one{Shape{}, dtype};
  const TensorData data = ndarray::run(ir::Full{Shape{}, dtype, value}, {}, {&one, 1});
  at::Tensor host = at::empty({}, at::TensorOptions().dtype(scalar_type(dtype, "scalar")));
  std::memcpy(host.data_ptr(), data.bytes().data(), data.bytes().size());
  return host.to(options.device());
}

}  // namespace ember::libtorch
