#include "backends/cuda/cuda_backend.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "backends/cuda/attention_kernels.h"
#include "backends/cuda/convolution.h"
#include "backends/cuda/device_pages.h"
#include "backends/cuda/gpu_context.h"
#include "backends/cuda/kernel_cache.h"
#include "backends/cuda/kernel_sources.h"
#include "backends/cuda/launch_queue.h"
#include "backends/cuda/matmul.h"
#include "backends/cuda/resample_kernels.h"
#include "backends/cuda/scan_sort_kernels.h"
#include "backends/ndarray/interpolate_plan.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/pool_windows.h"
#include "backends/ndarray/run_on_host.h"
#include "backends/pools/memory_manager.h"
#include "codegen/cuda_program.h"
#include "core/ceil_div.h"
#include "core/index_range.h"
#include "ember/error.h"
#include "fusion/fusion_backend.h"
#include "fusion/op_by_op.h"
#include "ir/fused_rows.h"
#include "ir/program.h"
#include "ir/random.h"
#include "ir/slice_range.h"

namespace ember::cuda {
namespace {

using backend::BufferPtr;
using backend::Operand;
using backend::Outputs;
using codegen::KernelDims;
using codegen::kProgramMaxRank;
using detail::arange_range;
using detail::index_range_of;
using detail::IndexRange;

/// A tensor's bytes in the device's pools.
class DeviceBuffer final : public backend::Buffer {
 public:
  DeviceBuffer(std::shared_ptr<pools::MemoryManager> memory, std::size_t bytes)
      : memory_(std::move(memory)), bytes_(bytes), block_(memory_->allocate(bytes)) {}
  ~DeviceBuffer() override { memory_->deallocate(block_, bytes_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Where the bytes are; a deferred copy into them is queued first (once).
  CUdeviceptr address() const {
    if (deferred_) std::call_once(deferred_->once, deferred_->queue, device_address(block_));
    return device_address(block_);
  }
  std::size_t bytes() const { return bytes_; }
  /// Makes this buffer the transpose of the last two dims of source, queued by queue(address) only
  /// when something first asks for its address (set once, before the buffer is shared): a product
  /// reads the source instead, through cuBLASLt's transpose flag, and the copy never runs. The
  /// source stays alive as long as this buffer.
  void defer_transpose(BufferPtr source, const Shape& shape,
                       std::function<void(CUdeviceptr)> queue) {
    deferred_ = std::make_unique<DeferredTranspose>(std::move(source), shape, std::move(queue));
  }
  /// The dense tensor this one, of shape, is the transpose of (its last two dims swapped), where it
  /// is kept and shape has the transpose's last two dims (a reshape that keeps them, adding or
  /// merging batch dims, keeps the relation; one that changes them does not).
  const BufferPtr& transpose_source(const Shape& shape) const {
    static const BufferPtr none;
    if (!deferred_ || shape.rank() < 2) return none;
    const Shape& made = deferred_->shape;
    if (shape[shape.rank() - 1] != made[made.rank() - 1] ||
        shape[shape.rank() - 2] != made[made.rank() - 2])
      return none;
    return deferred_->source;
  }
  /// The range of the integers it holds, where the host knew it when it made them (set once,
  /// before the buffer is shared).
  const std::optional<IndexRange>& index_range() const { return index_range_; }
  void set_index_range(std::optional<IndexRange> range) { index_range_ = range; }

 private:
  std::shared_ptr<pools::MemoryManager> memory_;
  std::size_t bytes_;
  std::byte* block_;
  std::optional<IndexRange> index_range_;
  struct DeferredTranspose {
    DeferredTranspose(BufferPtr source, Shape shape, std::function<void(CUdeviceptr)> queue)
        : source(std::move(source)), shape(std::move(shape)), queue(std::move(queue)) {}
    BufferPtr source;
    Shape shape;  // the transpose's
    std::function<void(CUdeviceptr)> queue;
    std::once_flag once;
  };
  std::unique_ptr<DeferredTranspose> deferred_;
};

CUdeviceptr address_of(const Operand& operand) {
  return static_cast<const DeviceBuffer&>(*operand.buffer).address();
}
CUdeviceptr address_of(const BufferPtr& buffer) {
  return static_cast<const DeviceBuffer&>(*buffer).address();
}

std::size_t bytes_of(const ir::TensorMeta& meta) {
  return static_cast<std::size_t>(meta.shape.num_elements()) * dtype_size(meta.dtype);
}

/// An index space walked by the copy kernel: sizes, and per tensor its strides and offset.
struct Walk {
  std::vector<int64_t> sizes;
  std::vector<int64_t> from_strides;
  int64_t from_offset = 0;
  std::vector<int64_t> to_strides;
  int64_t to_offset = 0;
};

/// walk with dims of size 1 dropped and neighbours merged wherever both tensors' strides allow
/// (a contiguous copy becomes rank 1), so the kernel divides as little as possible.
Walk simplified(const Walk& walk) {
  Walk out{{}, {}, walk.from_offset, {}, walk.to_offset};
  for (std::size_t d = 0; d < walk.sizes.size(); ++d) {
    if (walk.sizes[d] == 1) continue;
    if (!out.sizes.empty() && out.from_strides.back() == walk.from_strides[d] * walk.sizes[d] &&
        out.to_strides.back() == walk.to_strides[d] * walk.sizes[d]) {
      out.sizes.back() *= walk.sizes[d];
      out.from_strides.back() = walk.from_strides[d];
      out.to_strides.back() = walk.to_strides[d];
      continue;
    }
    out.sizes.push_back(walk.sizes[d]);
    out.from_strides.push_back(walk.from_strides[d]);
    out.to_strides.push_back(walk.to_strides[d]);
  }
  return out;
}

KernelDims dims_of(const std::vector<int64_t>& values) {
  KernelDims dims;
  std::copy(values.begin(), values.end(), dims.d);
  return dims;
}

/// A CUDA event recorded on the device's stream: profile's device clock.
class CudaTimestamp final : public backend::DeviceTimestamp {
 public:
  explicit CudaTimestamp(std::shared_ptr<const GpuContext> gpu) : gpu_(std::move(gpu)) {
    gpu_->make_current();
    gpu_->check(gpu_->api().cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate");
    const CUresult recorded = gpu_->api().cuEventRecord(event_, gpu_->stream());
    if (recorded != CUDA_SUCCESS) {
      gpu_->api().cuEventDestroy(event_);
      gpu_->check(recorded, "cuEventRecord");
    }
  }
  ~CudaTimestamp() override {
    try {
      gpu_->make_current();
    } catch (...) {
      return;  // a poisoned device: its events go with the process
    }
    gpu_->api().cuEventDestroy(event_);
  }
  CudaTimestamp(const CudaTimestamp&) = delete;
  CudaTimestamp& operator=(const CudaTimestamp&) = delete;

  double seconds_since(const backend::DeviceTimestamp& earlier) const override {
    gpu_->make_current();
    const auto& start = static_cast<const CudaTimestamp&>(earlier);
    gpu_->check(gpu_->api().cuEventSynchronize(event_), "cuEventSynchronize");
    float milliseconds = 0;
    gpu_->check(gpu_->api().cuEventElapsedTime(&milliseconds, start.event_, event_),
                "cuEventElapsedTime");
    return static_cast<double>(milliseconds) * 1e-3;
  }

 private:
  std::shared_ptr<const GpuContext> gpu_;
  CUevent event_ = nullptr;
};

/// The products of shape's dims before dim, of dim and after it: a tensor as [rows, n, inner].
struct Lanes {
  int64_t rows = 1;
  int64_t n = 1;
  int64_t inner = 1;
};

Lanes lanes_along(const Shape& shape, std::optional<int64_t> dim) {
  if (!dim) return {1, shape.num_elements(), 1};
  Lanes lanes;
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    const auto i = static_cast<int64_t>(d);
    (i < *dim ? lanes.rows : i == *dim ? lanes.n : lanes.inner) *= shape[d];
  }
  return lanes;
}

/// The compiled form of a program (ir::CompiledForm): its two kernels on this device
/// (codegen::program_kernel): any layout, and contiguous or one-element inputs.
struct ProgramKernel {
  CUfunction strided;
  CUfunction flat;
};

class CudaBackend final : public backend::Backend {
 public:
  CudaBackend(const Api& api, int index)
      : gpu_(std::make_shared<GpuContext>(api, index)),
        queue_(std::make_shared<LaunchQueue>(gpu_)),
        memory_(std::make_shared<pools::MemoryManager>(std::make_shared<DevicePages>(gpu_, queue_),
                                                       gpu_->name())),
        kernels_(gpu_),
        gemm_(gpu_),
        cudnn_(gpu_) {
    char name[256] = {};
    CUdevice device = 0;
    gpu_->check(api.cuDeviceGet(&device, index), "cuDeviceGet");
    gpu_->check(api.cuDeviceGetName(name, sizeof name, device), "cuDeviceGetName");
    std::size_t total = 0;
    gpu_->check(api.cuDeviceTotalMem(&total, device), "cuDeviceTotalMem");
    description_ = std::string(name) + " (" + gpu_->architecture() + ", " +
                   std::to_string(gpu_->multiprocessors()) + " multiprocessors, " +
                   std::to_string(total >> 20) + " MiB; " + cudnn_.describe() + ")";
  }

  // The graphs hold the kernel cache's functions: they go first.
  ~CudaBackend() override { queue_->close(); }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  std::string name() const override { return "cuda"; }
  void apply_settings(const DeviceSettings& settings) override {
    tf32_.store(settings.f32_matmul_precision == MatmulPrecision::High, std::memory_order_relaxed);
    queue_->set_graph_replay(settings.graph_replay);
  }
  std::string description() const override { return description_; }
  // Every dtype computes: the ones without kernels of their own on the host (cuda_backend.h).
  bool supports_dtype(DType /*dtype*/) const override { return true; }

  Outputs execute(const ir::Op& op, std::span<const Operand> inputs,
                  std::span<const ir::TensorMeta> outputs) override {
    gpu_->make_current();
    std::optional<Outputs> result =
        std::visit([&](const auto& o) { return run(o, op, inputs, outputs); }, op);
    if (result) return std::move(*result);
    return run_on_host(op, inputs, outputs);
  }

  bool runs_fused_attention(const ir::Attention& op,
                            std::span<const ir::TensorMeta> inputs) const override {
    return attention_shape(op, inputs).has_value();
  }

  backend::FusionSupport fusion_support() const override {
    backend::FusionSupport support;
    // Every dtype: a program whose float values are of two float dtypes, or that holds an op the
    // emitter leaves to the host (a 64-bit integer compared with a scalar), runs op by op.
    support.dtypes.assign(std::begin(kAllDTypes), std::end(kAllDTypes));
    support.max_rank = kProgramMaxRank;
    support.runs_programs = true;
    // An expand is a copy here (no strided views): read as a broadcast program input, one that
    // only elementwise ops read costs nothing.
    support.fuses_expand = true;
    return support;
  }

  Outputs execute_fused(const ir::Program& program, std::span<const Operand> inputs,
                        std::span<const Scalar> constants, const Shape& shape) override {
    gpu_->make_current();
    // The emitter's verdict is kept with the kernels (null: none), so it is asked once a program.
    const ProgramKernel* kernel = program.compiled.get<ProgramKernel>([&] {
      return codegen::has_program_kernel(program)
                 ? std::make_shared<ProgramKernel>(program_kernel(program))
                 : nullptr;
    });
    if (kernel == nullptr) return fusion::run_op_by_op(*this, program, inputs, constants, shape);
    return run_program(program, *kernel, inputs, constants, shape);
  }

  BufferPtr write(const TensorData& data) override {
    gpu_->make_current();
    auto buffer = allocate(data.bytes().size());
    buffer->set_index_range(index_range_of(data));
    // Queued work reads the memory first (a slice freed and reused): it goes on the stream first.
    queue_->drain();
    if (!data.bytes().empty())
      gpu_->check(gpu_->api().cuMemcpyHtoDAsync(buffer->address(), data.bytes().data(),
                                                data.bytes().size(), gpu_->stream()),
                  "cuMemcpyHtoDAsync");
    return buffer;
  }

  TensorData read(const Operand& operand) override {
    gpu_->make_current();
    // Not zeroed first: the copy writes every byte.
    TensorData data = TensorData::uninitialized(operand.meta.shape, operand.meta.dtype);
    const std::span<std::byte> bytes = data.bytes_mut();
    // The address first: a deferred transpose queues its copy when asked for it, and the drain
    // then issues that copy before the download.
    const CUdeviceptr from = address_of(operand);
    queue_->drain();
    if (!bytes.empty())
      gpu_->check(gpu_->api().cuMemcpyDtoHAsync(bytes.data(), from, bytes.size(), gpu_->stream()),
                  "cuMemcpyDtoHAsync");
    gpu_->synchronize();
    return data;
  }

  void sync() override {
    queue_->drain();
    gpu_->synchronize();
  }
  void flush() override { queue_->drain(); }
  std::shared_ptr<backend::DeviceTimestamp> record_timestamp() override {
    queue_->drain();
    return std::make_shared<CudaTimestamp>(gpu_);
  }

  std::optional<std::vector<SlicedPoolReport>> memory_pool_report() const override {
    return memory_->report();
  }
  std::optional<MemoryPoolUsage> memory_pool_usage() const override { return memory_->usage(); }
  void memory_cleanup() override {
    queue_->drain();
    {
      const std::lock_guard lock(workspace_mutex_);
      workspace_.reset();
    }
    memory_->cleanup();
  }
  void begin_persistent_allocations() override { memory_->set_persistent(true); }
  void end_persistent_allocations() noexcept override { memory_->set_persistent(false); }

 private:
  static constexpr unsigned kThreads = 256;
  /// cuBLASLt's workspace (its recommendation for Hopper).
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

  std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes) {
    return std::make_shared<DeviceBuffer>(memory_, bytes);
  }
  /// An exact-size block outside the pools (the matmul workspace, kept for the device's life).
  std::shared_ptr<DeviceBuffer> allocate_persistent(std::size_t bytes) {
    memory_->set_persistent(true);
    try {
      auto buffer = allocate(bytes);
      memory_->set_persistent(false);
      return buffer;
    } catch (...) {
      memory_->set_persistent(false);
      throw;
    }
  }
  std::shared_ptr<DeviceBuffer> allocate(const ir::TensorMeta& meta) {
    return allocate(bytes_of(meta));
  }

  /// Blocks of kRowThreads threads for a warp a row.
  static unsigned warp_rows_grid(int64_t rows) {
    constexpr int64_t kWarps = kRowThreads / 32;
    return static_cast<unsigned>((rows + kWarps - 1) / kWarps);
  }

  /// Blocks of a grid-stride kernel over count elements: enough to fill the GPU, no more.
  unsigned grid_for(int64_t count) const {
    const int64_t blocks = (count + kThreads - 1) / kThreads;
    return static_cast<unsigned>(
        std::clamp<int64_t>(blocks, 1, int64_t{gpu_->multiprocessors()} * 32));
  }

  /// Every launch goes through the queue (launch_queue.h): issued at the next drain.
  void launch(CUfunction function, unsigned grid, unsigned block, LaunchArguments arguments) {
    queue_->launch(function, grid, block, std::move(arguments));
  }

  // ---- the ops ------------------------------------------------------------------------------
  // One overload per op struct: nullopt sends the op to the host (run_on_host).

  template <typename Op>
  requires(std::is_same_v<Op, ir::Unary> || std::is_same_v<Op, ir::Binary> ||
           std::is_same_v<Op, ir::BinaryScalar> || std::is_same_v<Op, ir::Compare> ||
           std::is_same_v<Op, ir::CompareScalar> || std::is_same_v<Op, ir::Where> ||
           std::is_same_v<Op, ir::MaskFill> || std::is_same_v<Op, ir::Activation>)
      std::optional<Outputs> run(const Op& /*typed*/, const ir::Op& op,
                                 std::span<const Operand> inputs,
                                 std::span<const ir::TensorMeta> outputs) {
    return elementwise(op, inputs, outputs[0]);
  }

  std::optional<Outputs> run(const ir::Cast& cast, const ir::Op& op,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const DType from = inputs[0].meta.dtype;
    if (is_float(from) && is_float(cast.dtype) && from != cast.dtype) {
      auto out = allocate(outputs[0]);
      const int64_t n = outputs[0].shape.num_elements();
      if (n != 0) {
        LaunchArguments arguments;
        arguments.add(address_of(inputs[0]));
        arguments.add(out->address());
        arguments.add(static_cast<long long>(n));
        launch(kernels_.function(cast_source, "ember_cast", from, cast.dtype), grid_for(n),
               kThreads, arguments);
      }
      return Outputs{out};
    }
    return elementwise(op, inputs, outputs[0]);
  }

  std::optional<Outputs> elementwise(const ir::Op& op, std::span<const Operand> inputs,
                                     const ir::TensorMeta& output) {
    std::vector<ir::TensorMeta> metas;
    for (const Operand& input : inputs)
      metas.push_back(input.meta);
    const ir::Program program = ir::lone_op_program(op, metas, output);
    // The emitter's verdict and the kernels, once per form of the op: building and hashing the
    // source on every call was most of a lone op's host time.
    std::optional<ProgramKernel> kernel;
    const std::string key = ir::lone_op_key(op, metas, output.dtype);
    {
      const std::lock_guard lock(lone_kernels_mutex_);
      if (const auto found = lone_kernels_.find(key); found != lone_kernels_.end())
        kernel = found->second;
    }
    if (!kernel) {
      if (codegen::has_program_kernel(program)) kernel = program_kernel(program);
      const std::lock_guard lock(lone_kernels_mutex_);
      lone_kernels_.emplace(key, kernel);
    }
    if (!kernel) return std::nullopt;
    std::vector<Scalar> constants;
    if (const std::optional<Scalar> scalar = ir::scalar_of(op)) constants.push_back(*scalar);
    return run_program(program, *kernel, inputs, constants, output.shape);
  }

  ProgramKernel program_kernel(const ir::Program& program) {
    const std::string source = codegen::program_kernel(program, "ember_program");
    return {kernels_.function(source, "ember_program"),
            kernels_.function(source, "ember_program_flat")};
  }

  Outputs run_program(const ir::Program& program, const ProgramKernel& kernel,
                      std::span<const Operand> inputs, std::span<const Scalar> constants,
                      const Shape& shape) {
    Outputs outputs;
    for (const uint32_t result : program.outputs)
      outputs.push_back(allocate({shape, program.instructions[result].dtype}));
    const int64_t n = shape.num_elements();
    if (n == 0) return outputs;
    // Sizes and per-input strides, with mergeable dims merged (cuda_program.h allows it).
    std::vector<Shape> input_shapes;
    for (const Operand& input : inputs)
      input_shapes.push_back(input.meta.shape);
    auto [sizes, strides, offsets] = codegen::merged_dims(shape, input_shapes);
    // Both kernels take the pointers first and the scalars last (codegen::program_kernel).
    const auto launch_with = [&](CUfunction function, int64_t threads, const auto& add_middle) {
      LaunchArguments arguments;
      for (const Operand& input : inputs)
        arguments.add(address_of(input));
      for (const BufferPtr& output : outputs)
        arguments.add(address_of(output));
      add_middle(arguments);
      for (const codegen::KernelScalar& scalar : codegen::program_scalars(program, constants))
        std::visit([&](auto value) { arguments.add(value); }, scalar);
      launch(function, grid_for(threads), kThreads, arguments);
      return outputs;
    };
    if (const std::optional<unsigned> broadcast =
            flat_broadcast(program, sizes, strides, inputs, outputs)) {
      return launch_with(kernel.flat, (n + 3) / 4, [&](LaunchArguments& arguments) {
        arguments.add(static_cast<long long>(n));
        arguments.add(*broadcast);
      });
    }
    return launch_with(kernel.strided, n, [&](LaunchArguments& arguments) {
      arguments.add(static_cast<long long>(n));
      arguments.add(static_cast<int>(sizes.size()));
      arguments.add(dims_of(sizes));
      for (const auto& s : strides)
        arguments.add(dims_of(s));
    });
  }

  /// The flat kernel's broadcast bits where it can run the program (its merged dims one, each
  /// input contiguous or one element, every vector pointer aligned to four elements), else
  /// nullopt.
  static std::optional<unsigned> flat_broadcast(const ir::Program& program,
                                                const std::vector<int64_t>& sizes,
                                                const std::vector<std::vector<int64_t>>& strides,
                                                std::span<const Operand> inputs,
                                                const Outputs& outputs) {
    if (sizes.size() > 1 || inputs.size() > 32) return std::nullopt;
    const auto aligned = [](CUdeviceptr address, DType dtype) {
      return address % (4 * dtype_size(dtype)) == 0;
    };
    unsigned broadcast = 0;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const int64_t stride = sizes.empty() ? 0 : strides[k][0];
      if (stride == 0) {
        broadcast |= 1u << k;
      } else if (stride != 1 || !aligned(address_of(inputs[k]), inputs[k].meta.dtype)) {
        return std::nullopt;
      }
    }
    for (std::size_t k = 0; k < outputs.size(); ++k)
      if (!aligned(address_of(outputs[k]), program.instructions[program.outputs[k]].dtype))
        return std::nullopt;
    return broadcast;
  }

  std::optional<Outputs> run(const ir::Reduce& reduce, const ir::Op& op,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    // Var of an integer or Bool: ir::infer refuses it, and ndarray says so too.
    if (!has_reduce_kernel(reduce.op, x.dtype)) return std::nullopt;
    const Lanes lanes = lanes_along(x.shape, reduce.dim);
    const bool extreme = reduce.op == ir::ReduceOp::Max || reduce.op == ir::ReduceOp::Min ||
                         reduce.op == ir::ReduceOp::ArgMax || reduce.op == ir::ReduceOp::ArgMin;
    if (extreme && lanes.n == 0 && lanes.rows * lanes.inner != 0)
      throw InvalidArgument("[" + ir::name(op) + "] cannot reduce an empty dim");
    auto out = allocate(outputs[0]);
    const int64_t count = lanes.rows * lanes.inner;
    if (count == 0) return Outputs{out};
    const auto kernel = [&](std::string_view name) {
      return kernels_.function(reduce_source, name, reduce, x.dtype, outputs[0].dtype);
    };
    const auto correction = static_cast<long long>(reduce.correction);
    if (lanes.inner > 1) {
      // Columns: too few of them to fill the GPU get their lanes split into chunks, combined by
      // a second kernel.
      const int64_t wanted_threads = int64_t{gpu_->multiprocessors()} * 2048;
      int64_t chunks = 1;
      if (count < wanted_threads && lanes.n > 64)
        chunks = std::min((lanes.n + 31) / 32, (wanted_threads + count - 1) / count);
      const int64_t chunk = (lanes.n + chunks - 1) / chunks;
      std::shared_ptr<DeviceBuffer> partial =
          allocate(static_cast<std::size_t>(count * chunks) * reduce_state_size(reduce, x.dtype));
      LaunchArguments arguments;
      arguments.add(address_of(inputs[0]));
      arguments.add(out->address());
      arguments.add(partial->address());
      arguments.add(static_cast<long long>(lanes.rows));
      arguments.add(static_cast<long long>(lanes.n));
      arguments.add(static_cast<long long>(lanes.inner));
      arguments.add(static_cast<long long>(chunks));
      arguments.add(static_cast<long long>(chunk));
      arguments.add(correction);
      launch(kernel("ember_reduce_columns"), grid_for(count * chunks), kThreads, arguments);
      if (chunks > 1) {
        LaunchArguments combine;
        combine.add(partial->address());
        combine.add(out->address());
        combine.add(static_cast<long long>(lanes.rows));
        combine.add(static_cast<long long>(lanes.inner));
        combine.add(static_cast<long long>(chunks));
        combine.add(static_cast<long long>(lanes.n));
        combine.add(correction);
        launch(kernel("ember_reduce_column_partials"), grid_for(count), kThreads, combine);
      }
      return Outputs{out};
    }
    if (lanes.n <= kWarpReduceElements && lanes.rows >= int64_t{gpu_->multiprocessors()} * 8) {
      LaunchArguments arguments;
      arguments.add(address_of(inputs[0]));
      arguments.add(out->address());
      arguments.add(static_cast<long long>(lanes.rows));
      arguments.add(static_cast<long long>(lanes.n));
      arguments.add(correction);
      launch(kernel("ember_reduce_warp_rows"), warp_rows_grid(lanes.rows), kRowThreads, arguments);
      return Outputs{out};
    }
    // Rows: long rows split into chunks (blocks of their own) when there are too few rows to fill
    // the GPU; a second kernel combines each row's chunks.
    constexpr int64_t kChunk = 16384;
    const int64_t wanted_blocks = int64_t{gpu_->multiprocessors()} * 4;
    int64_t chunks = 1;
    if (lanes.rows < wanted_blocks && lanes.n > kChunk)
      chunks =
          std::min((lanes.n + kChunk - 1) / kChunk, (wanted_blocks + lanes.rows - 1) / lanes.rows);
    const int64_t chunk = (lanes.n + chunks - 1) / chunks;
    std::shared_ptr<DeviceBuffer> partial = allocate(static_cast<std::size_t>(lanes.rows * chunks) *
                                                     reduce_state_size(reduce, x.dtype));
    LaunchArguments arguments;
    arguments.add(address_of(inputs[0]));
    arguments.add(out->address());
    arguments.add(partial->address());
    arguments.add(static_cast<long long>(lanes.rows));
    arguments.add(static_cast<long long>(lanes.n));
    arguments.add(static_cast<long long>(chunks));
    arguments.add(static_cast<long long>(chunk));
    arguments.add(correction);
    launch(kernel("ember_reduce_rows"), static_cast<unsigned>(lanes.rows * chunks), kRowThreads,
           arguments);
    if (chunks > 1) {
      LaunchArguments combine;
      combine.add(partial->address());
      combine.add(out->address());
      combine.add(static_cast<long long>(lanes.rows));
      combine.add(static_cast<long long>(chunks));
      combine.add(static_cast<long long>(lanes.n));
      combine.add(correction);
      launch(kernel("ember_reduce_partials"), static_cast<unsigned>(lanes.rows), kRowThreads,
             combine);
    }
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Softmax& softmax, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    if (!has_float_kernels(x.dtype)) return std::nullopt;
    auto out = allocate(outputs[0]);
    const Lanes lanes = lanes_along(x.shape, softmax.dim);
    if (lanes.rows * lanes.n * lanes.inner == 0) return Outputs{out};
    // A warp a row for rows of up to 1024 (per_lane a power of two: six kernels at most), 16
    // bytes a load where the row length is a multiple of them (the buffers are 64-byte aligned).
    const int whole = static_cast<int>(16 / dtype_size(x.dtype));
    const int vector = lanes.n % whole == 0 ? whole : 1;
    int per_lane = vector;
    while (32 * per_lane < lanes.n && per_lane < 32)
      per_lane *= 2;
    const auto kernel = [&](std::string_view name) {
      return kernels_.function(softmax_source, name, softmax, x.dtype, per_lane, vector);
    };
    LaunchArguments arguments;
    arguments.add(address_of(inputs[0]));
    arguments.add(out->address());
    arguments.add(static_cast<long long>(lanes.rows));
    arguments.add(static_cast<long long>(lanes.n));
    if (lanes.inner == 1 && lanes.n <= 32 * per_lane) {
      launch(kernel("ember_softmax_warp_rows"), warp_rows_grid(lanes.rows), kRowThreads, arguments);
    } else if (lanes.inner == 1) {
      launch(kernel("ember_softmax_rows"), static_cast<unsigned>(lanes.rows), kRowThreads,
             arguments);
    } else {
      arguments.add(static_cast<long long>(lanes.inner));
      launch(kernel("ember_softmax_columns"), grid_for(lanes.rows * lanes.inner), kThreads,
             arguments);
    }
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Matmul& /*matmul*/, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& lhs = inputs[0].meta;
    const ir::TensorMeta& rhs = inputs[1].meta;
    if (!Gemm::takes(lhs.dtype)) return std::nullopt;
    const ir::TensorMeta& result = outputs[0];
    const std::size_t rank = result.shape.rank();
    const int64_t m = lhs.shape[rank - 2];
    const int64_t k = lhs.shape[rank - 1];
    const int64_t n = rhs.shape[rank - 1];
    const int64_t batch = result.shape.num_elements() / std::max<int64_t>(m * n, 1);
    auto out = allocate(result);
    if (result.shape.num_elements() == 0) return Outputs{out};
    if (k == 0) {
      queue_->fill(out->address(), 0, out->bytes());
      return Outputs{out};
    }
    const auto batch_of = [&](const ir::TensorMeta& meta) {
      return meta.shape.num_elements() / (meta.shape[rank - 2] * meta.shape[rank - 1]);
    };
    Operand a = inputs[0];
    Operand b = inputs[1];
    GemmProblem problem{lhs.dtype, batch, m, n, k, 0, m * k, 0, k * n, out->address()};
    if (batch_of(rhs) == 1 && batch_of(lhs) == batch) {
      // One right-hand matrix for every batch entry (a linear layer): one product of batch * m
      // rows.
      problem.m = batch * m;
      problem.batch = 1;
    } else {
      // Broadcast batch dims are made whole first.
      if (batch_of(lhs) != batch) a = expanded(a, result.shape, rank - 2);
      if (batch_of(rhs) != batch) b = expanded(b, result.shape, rank - 2);
    }
    read_transposed(a, problem.a, problem.transpose_a, problem.batch == batch || batch == 1);
    read_transposed(b, problem.b, problem.transpose_b, true);
    run_gemm(problem);
    return Outputs{out};
  }

  /// A product's operand: the dense tensor it is a deferred transpose of, read with the transpose
  /// flag (where allowed: not for a left operand whose batch is folded into its rows), else its
  /// own bytes.
  static void read_transposed(const Operand& operand, CUdeviceptr& address, bool& transposed,
                              bool allowed) {
    const auto& buffer = static_cast<const DeviceBuffer&>(*operand.buffer);
    const BufferPtr none;
    const BufferPtr& source = allowed ? buffer.transpose_source(operand.meta.shape) : none;
    transposed = source != nullptr;
    address = source != nullptr ? address_of(source) : buffer.address();
  }

  /// operand with its batch dims (all but the last two) broadcast to result's.
  Operand expanded(const Operand& operand, const Shape& result, std::size_t batch_rank) {
    std::vector<int64_t> dims = result.dims();
    dims[batch_rank] = operand.meta.shape[batch_rank];
    dims[batch_rank + 1] = operand.meta.shape[batch_rank + 1];
    const ir::TensorMeta meta{Shape(dims), operand.meta.dtype};
    return {expand_to(operand, meta), meta};
  }

  // ---- layout ---------------------------------------------------------------------------------

  std::optional<Outputs> run(const ir::Reshape& /*reshape*/, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> /*outputs*/) {
    return Outputs{inputs[0].buffer};  // same bytes, row-major either way
  }

  std::optional<Outputs> run(const ir::Permute& permute, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const std::vector<int64_t> strides = inputs[0].meta.shape.contiguous_strides();
    Walk walk{outputs[0].shape.dims(), {}, 0, outputs[0].shape.contiguous_strides(), 0};
    for (const int64_t axis : permute.axes)
      walk.from_strides.push_back(strides[static_cast<std::size_t>(axis)]);
    if (swaps_last_two(permute.axes)) {
      // The transpose of a deferred transpose is its source: neither copy runs (the backward of
      // Linear's weight, (g^T x)^T transposed back, hands the optimizer g^T x itself).
      const auto& buffer = static_cast<const DeviceBuffer&>(*inputs[0].buffer);
      if (const BufferPtr& source = buffer.transpose_source(inputs[0].meta.shape))
        return Outputs{source};
      if (fits_copy_kernel(walk)) return deferred_transpose(inputs[0], outputs[0], walk);
    }
    return copied(inputs[0], outputs[0], walk);
  }

  static bool swaps_last_two(const std::vector<int64_t>& axes) {
    const auto rank = static_cast<int64_t>(axes.size());
    if (rank < 2 || axes[rank - 2] != rank - 1 || axes[rank - 1] != rank - 2) return false;
    for (int64_t d = 0; d < rank - 2; ++d)
      if (axes[d] != d) return false;
    return true;
  }

  /// A transpose of operand's last two dims whose copy waits until something needs its bytes (a
  /// product reads operand itself, transposed by cuBLASLt).
  Outputs deferred_transpose(const Operand& operand, const ir::TensorMeta& meta, const Walk& walk) {
    auto out = allocate(meta);
    out->set_index_range(static_cast<const DeviceBuffer&>(*operand.buffer).index_range());
    const CUdeviceptr from = address_of(operand);
    const std::size_t element_size = dtype_size(meta.dtype);
    out->defer_transpose(
        operand.buffer, meta.shape,
        [this, from, element_size, walk](CUdeviceptr to) { copy(from, to, element_size, walk); });
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Flip& flip, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const Shape& shape = inputs[0].meta.shape;
    Walk walk{shape.dims(), shape.contiguous_strides(), 0, shape.contiguous_strides(), 0};
    for (const int64_t axis : flip.axes) {
      const auto d = static_cast<std::size_t>(axis);
      walk.from_offset += (shape[d] - 1) * walk.from_strides[d];
      walk.from_strides[d] = -walk.from_strides[d];
    }
    return copied(inputs[0], outputs[0], walk);
  }

  std::optional<Outputs> run(const ir::Expand& /*expand*/, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    return Outputs{expand_to(inputs[0], outputs[0])};
  }

  /// operand broadcast to meta (same rank; its dims of size 1 repeat).
  BufferPtr expand_to(const Operand& operand, const ir::TensorMeta& meta) {
    const Shape& shape = operand.meta.shape;
    std::vector<int64_t> strides = shape.contiguous_strides();
    for (std::size_t d = 0; d < shape.rank(); ++d) {
      if (shape[d] == 1 && meta.shape[d] != 1) strides[d] = 0;
    }
    Walk walk{meta.shape.dims(), strides, 0, meta.shape.contiguous_strides(), 0};
    std::optional<Outputs> out = copied(operand, meta, walk);
    if (!out) return run_on_host(ir::Op(ir::Expand{meta.shape}), {&operand, 1}, {&meta, 1})[0];
    return (*out)[0];
  }

  std::optional<Outputs> run(const ir::Slice& slice, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    Walk walk{outputs[0].shape.dims(), {}, 0, outputs[0].shape.contiguous_strides(), 0};
    place_ranges(slice.ranges, inputs[0].meta.shape, walk.from_strides, walk.from_offset);
    return copied(inputs[0], outputs[0], walk);
  }

  std::optional<Outputs> run(const ir::SliceAssign& assign, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& values = inputs[1].meta;
    Walk walk{values.shape.dims(), values.shape.contiguous_strides(), 0, {}, 0};
    place_ranges(assign.ranges, outputs[0].shape, walk.to_strides, walk.to_offset);
    if (!fits_copy_kernel(walk)) return std::nullopt;
    auto out = allocate(outputs[0]);
    copy_bytes(address_of(inputs[0]), out->address(), out->bytes());
    copy(address_of(inputs[1]), out->address(), dtype_size(values.dtype), walk);
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Cat& cat, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const Shape& shape = outputs[0].shape;
    const auto dim = static_cast<std::size_t>(cat.dim);
    const std::vector<int64_t> out_strides = shape.contiguous_strides();
    std::vector<Walk> walks;
    int64_t offset = 0;
    for (const Operand& input : inputs) {
      walks.push_back({input.meta.shape.dims(), input.meta.shape.contiguous_strides(), 0,
                       out_strides, offset * out_strides[dim]});
      offset += input.meta.shape[dim];
      if (!fits_copy_kernel(walks.back())) return std::nullopt;
    }
    auto out = allocate(outputs[0]);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      copy(address_of(inputs[i]), out->address(), dtype_size(outputs[0].dtype), walks[i]);
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Full& full, const ir::Op& /*op*/,
                             std::span<const Operand> /*inputs*/,
                             std::span<const ir::TensorMeta> outputs) {
    // One element made by ndarray's kernel (its conversion of the value), its bytes repeated
    // by a kernel: no upload, so the queue goes on (an upload drains it).
    const ir::TensorMeta one{Shape{1}, full.dtype};
    const ir::Full element{Shape{1}, full.dtype, full.value};
    const TensorData value = ndarray::run(element, {}, {&one, 1});
    std::array<unsigned char, 16> pattern{};
    const std::span<const std::byte> bytes = value.bytes();
    for (std::size_t b = 0; b < pattern.size(); ++b)
      pattern[b] = static_cast<unsigned char>(bytes[b % bytes.size()]);
    auto out = allocate(outputs[0]);
    const auto n = static_cast<long long>(outputs[0].shape.num_elements() * dtype_size(full.dtype));
    if (n == 0) return Outputs{out};
    LaunchArguments arguments;
    arguments.add(out->address());
    arguments.add(n);
    arguments.add(std::bit_cast<std::array<unsigned long long, 2>>(pattern)[0]);
    arguments.add(std::bit_cast<std::array<unsigned long long, 2>>(pattern)[1]);
    launch(kernels_.function(fill_source, "ember_fill"), grid_for((n + 15) / 16), kThreads,
           arguments);
    return Outputs{out};
  }

  // ---- convolution: cuDNN, else column matrices and cuBLASLt ----------------------------------

  std::optional<Outputs> run(const ir::Conv& conv, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    if (!Gemm::takes(x.dtype) || x.shape.rank() > 5) return std::nullopt;
    const ir::TensorMeta& out = outputs[0];
    auto result = allocate(out);
    if (out.shape.num_elements() == 0) return Outputs{result};
    if (x.shape.num_elements() == 0 || inputs[1].meta.shape.num_elements() == 0) {
      zero(*result);
    } else if (!cudnn_conv(conv.geometry, inputs[0], inputs[1], *result, out)) {
      if (conv.geometry.transposed)
        transposed_conv(conv.geometry, inputs[0], inputs[1], out, *result);
      else
        forward_conv(conv.geometry, inputs[0], inputs[1], out, *result);
    }
    if (inputs.size() < 3) return Outputs{result};
    // The bias as [C_out, 1, ...], which broadcasts along the channels.
    std::vector<int64_t> per_channel(out.shape.rank() - 1, 1);
    per_channel[0] = out.shape[1];
    const Operand biased[] = {{result, out}, {inputs[2].buffer, {Shape(per_channel), out.dtype}}};
    return elementwise(ir::Binary{ir::BinaryOp::Add}, biased, out);
  }

  std::optional<Outputs> run(const ir::ConvWeightGrad& grad, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    if (!Gemm::takes(x.dtype) || x.shape.rank() > 5) return std::nullopt;
    auto result = allocate(outputs[0]);
    const ir::TensorMeta& g = inputs[1].meta;
    if (outputs[0].shape.num_elements() == 0) return Outputs{result};
    if (x.shape.num_elements() == 0 || g.shape.num_elements() == 0) {
      zero(*result);
      return Outputs{result};
    }
    // cuDNN's convolution runs from image to positions: from x to g, or, for a transposed
    // convolution (the adjoint of the one from its output to its input), from g to x.
    const bool transposed = grad.geometry.transposed;
    const Operand& conv_in = inputs[transposed ? 1 : 0];
    const Operand& conv_out = inputs[transposed ? 0 : 1];
    if (run_cudnn(ConvCall::BackwardFilter,
                  conv_shape(grad.geometry, x.dtype, conv_in.meta.shape, grad.weight_shape,
                             conv_out.meta.shape),
                  {address_of(conv_in), result->address(), address_of(conv_out)}))
      return Outputs{result};
    if (transposed) return std::nullopt;  // the columns have no transposed weight gradient: host
    const ConvColumns geometry = columns_of(grad.geometry, x.shape, g.shape, grad.weight_shape);
    const int64_t groups = grad.geometry.groups;
    const int64_t n = x.shape[0];
    const int64_t channels_in = x.shape[1];
    const int64_t channels_out = g.shape[1];
    const int64_t k = kernel_size(geometry) * channels_in / groups;
    const int64_t positions = n * position_count(geometry);
    const auto cols = columns(inputs[0], geometry);
    const auto g_rows = channels_first(inputs[1]);  // [C_out, N * L]
    for (int64_t group = 0; group < groups; ++group) {
      const int64_t rows = channels_out / groups;
      run_gemm({x.dtype, 1, rows, k, positions, element(*g_rows, group * rows * positions, x.dtype),
                0, element(*cols, group * k * positions, x.dtype), 0,
                element(*result, group * rows * k, x.dtype), false, true});
    }
    return Outputs{result};
  }

  /// result = conv(x, weight), or its transposed convolution, through cuDNN: Forward, or
  /// BackwardData from x (the transposed convolution is the adjoint of the one from its output to
  /// its input). false, with nothing queued, where cuDNN is absent or refuses.
  bool cudnn_conv(const ir::ConvGeometry& geometry, const Operand& x, const Operand& weight,
                  const DeviceBuffer& result, const ir::TensorMeta& out) {
    const bool transposed = geometry.transposed;
    const ConvShape shape =
        conv_shape(geometry, x.meta.dtype, transposed ? out.shape : x.meta.shape, weight.meta.shape,
                   transposed ? x.meta.shape : out.shape);
    const CUdeviceptr image = transposed ? result.address() : address_of(x);
    const CUdeviceptr positions = transposed ? address_of(x) : result.address();
    return run_cudnn(transposed ? ConvCall::BackwardData : ConvCall::Forward, shape,
                     {image, address_of(weight), positions});
  }

  /// cuDNN's convolution from image x to positions y under geometry (its transposed flag aside).
  ConvShape conv_shape(const ir::ConvGeometry& geometry, DType dtype, const Shape& x,
                       const Shape& w, const Shape& y) const {
    return {.dtype = dtype,
            .x = x.dims(),
            .w = w.dims(),
            .y = y.dims(),
            .stride = geometry.stride,
            .padding = geometry.padding,
            .dilation = geometry.dilation,
            .groups = geometry.groups,
            .tf32 = tf32_.load(std::memory_order_relaxed)};
  }

  /// call through cuDNN, its workspace from the pools (freed once queued: the pools reuse a block
  /// for later work only); false where cuDNN is absent or refuses.
  bool run_cudnn(ConvCall call, const ConvShape& shape, const ConvTensors& tensors) {
    // cuDNN may refuse a shape at the call itself, which must then take the column path: the
    // call is issued at once, after the queued launches, never queued or captured in a graph.
    queue_->drain();
    std::shared_ptr<DeviceBuffer> workspace;
    return cudnn_.run(call, shape, tensors, [&](std::size_t bytes) {
      workspace = allocate(bytes);
      return workspace->address();
    });
  }

  /// out = conv(x, weight): columns of x, a product per group into [C_out, N * L], then the
  /// channels moved back behind the samples.
  void forward_conv(const ir::ConvGeometry& geometry, const Operand& x, const Operand& weight,
                    const ir::TensorMeta& out, DeviceBuffer& result) {
    const ConvColumns g = columns_of(geometry, x.meta.shape, out.shape, weight.meta.shape);
    const DType dtype = x.meta.dtype;
    const int64_t groups = geometry.groups;
    const int64_t n = x.meta.shape[0];
    const int64_t channels_out = out.shape[1];
    const int64_t k = kernel_size(g) * x.meta.shape[1] / groups;
    const int64_t positions = position_count(g);
    const auto cols = columns(x, g);
    auto rows = allocate(result.bytes());  // [C_out, N * L]
    for (int64_t group = 0; group < groups; ++group) {
      const int64_t m = channels_out / groups;
      run_gemm({dtype, 1, m, n * positions, k, element(weight, group * m * k), 0,
                element(*cols, group * k * n * positions, dtype), 0,
                element(*rows, group * m * n * positions, dtype)});
    }
    // [C_out, N, L] to [N, C_out, L].
    const Walk walk{{n, channels_out, positions},
                    {positions, n * positions, 1},
                    0,
                    {channels_out * positions, positions, 1},
                    0};
    copy(rows->address(), result.address(), dtype_size(dtype), walk);
  }

  /// out = the transposed convolution of x (the adjoint of the convolution from out's shape to
  /// x's): a product per group of the weight's transpose by x's channels, then the columns summed
  /// into the image.
  void transposed_conv(const ir::ConvGeometry& geometry, const Operand& x, const Operand& weight,
                       const ir::TensorMeta& out, DeviceBuffer& result) {
    const ConvColumns g = columns_of(geometry, out.shape, x.meta.shape, weight.meta.shape);
    const DType dtype = x.meta.dtype;
    const int64_t groups = geometry.groups;
    const int64_t n = x.meta.shape[0];
    const int64_t channels_in = x.meta.shape[1];
    const int64_t channels_out = out.shape[1];
    const int64_t k = kernel_size(g) * channels_out / groups;  // rows of a group's columns
    const int64_t positions = n * position_count(g);
    const auto x_rows = channels_first(x);  // [C_in, N * L]
    auto cols = allocate(static_cast<std::size_t>(groups * k * positions) * dtype_size(dtype));
    for (int64_t group = 0; group < groups; ++group) {
      const int64_t inner = channels_in / groups;
      run_gemm({dtype, 1, k, positions, inner, element(weight, group * inner * k), 0,
                element(*x_rows, group * inner * positions, dtype), 0,
                element(*cols, group * k * positions, dtype), true, false});
    }
    LaunchArguments arguments;
    arguments.add(cols->address());
    arguments.add(result.address());
    arguments.add(static_cast<long long>(n));
    arguments.add(static_cast<long long>(channels_out));
    arguments.add(g);
    launch(kernels_.function(columns_source, "ember_col2im", dtype),
           grid_for(out.shape.num_elements()), kThreads, arguments);
  }

  /// The column matrix [C * K, N * L] of x under g.
  std::shared_ptr<DeviceBuffer> columns(const Operand& x, const ConvColumns& g) {
    const int64_t channels = x.meta.shape[1];
    const int64_t count = channels * kernel_size(g) * x.meta.shape[0] * position_count(g);
    auto cols = allocate(static_cast<std::size_t>(count) * dtype_size(x.meta.dtype));
    LaunchArguments arguments;
    arguments.add(address_of(x));
    arguments.add(cols->address());
    arguments.add(static_cast<long long>(x.meta.shape[0]));
    arguments.add(static_cast<long long>(channels));
    arguments.add(g);
    launch(kernels_.function(columns_source, "ember_im2col", x.meta.dtype), grid_for(count),
           kThreads, arguments);
    return cols;
  }

  /// t [N, C, *spatial] as [C, N * L]: the channels first.
  std::shared_ptr<DeviceBuffer> channels_first(const Operand& t) {
    const int64_t n = t.meta.shape[0];
    const int64_t channels = t.meta.shape[1];
    const int64_t positions = t.meta.shape.num_elements() / std::max<int64_t>(n * channels, 1);
    auto rows = allocate(t.meta);
    const Walk walk{{channels, n, positions},
                    {positions, channels * positions, 1},
                    0,
                    {n * positions, positions, 1},
                    0};
    copy(address_of(t), rows->address(), dtype_size(t.meta.dtype), walk);
    return rows;
  }

  /// The columns' geometry of a convolution from image [N, C, *in] to positions [N, C', *out]
  /// with a weight of shape weight (its kernel's sizes last).
  static ConvColumns columns_of(const ir::ConvGeometry& geometry, const Shape& image,
                                const Shape& positions, const Shape& weight) {
    ConvColumns g{};
    const std::size_t spatial = image.rank() - 2;
    const std::size_t missing = 3 - spatial;
    for (std::size_t d = 0; d < 3; ++d) {
      if (d < missing) {
        g.in[d] = g.out[d] = g.kernel[d] = g.stride[d] = g.dilation[d] = 1;
        g.pad[d] = 0;
        continue;
      }
      const std::size_t s = d - missing;
      g.in[d] = image[2 + s];
      g.out[d] = positions[2 + s];
      g.kernel[d] = weight[2 + s];
      g.stride[d] = geometry.stride[s];
      g.pad[d] = geometry.padding[s];
      g.dilation[d] = geometry.dilation[s];
    }
    return g;
  }
  static int64_t kernel_size(const ConvColumns& g) {
    return g.kernel[0] * g.kernel[1] * g.kernel[2];
  }
  static int64_t position_count(const ConvColumns& g) { return g.out[0] * g.out[1] * g.out[2]; }

  /// The device address of element index of a buffer of dtype.
  static CUdeviceptr element(const DeviceBuffer& buffer, int64_t index, DType dtype) {
    return buffer.address() + static_cast<CUdeviceptr>(index) * dtype_size(dtype);
  }
  static CUdeviceptr element(const Operand& operand, int64_t index) {
    return address_of(operand) + static_cast<CUdeviceptr>(index) * dtype_size(operand.meta.dtype);
  }

  void zero(DeviceBuffer& buffer) { queue_->fill(buffer.address(), 0, buffer.bytes()); }

  void run_gemm(GemmProblem problem) {
    problem.tf32 = tf32_.load(std::memory_order_relaxed);
    std::shared_ptr<DeviceBuffer> workspace;
    {
      // Threads may run ops on one device at once: one of them makes the workspace.
      const std::lock_guard lock(workspace_mutex_);
      if (!workspace_) workspace_ = allocate_persistent(kWorkspaceBytes);
      workspace = workspace_;
    }
    std::shared_ptr<const GemmPlan> plan = gemm_.plan(problem, kWorkspaceBytes);
    LaunchArguments operands;
    for (const CUdeviceptr address : {problem.a, problem.b, problem.c, workspace->address()})
      operands.add(address);
    // The address, not the buffer: an entry must not own device memory (freeing it when the
    // queue drops the entry could give a page back, which drains the queue from inside its own
    // drain). workspace_ outlives the queued call: memory_cleanup drains before releasing it.
    queue_->call(gemm_form(problem), std::move(operands),
                 [this, plan = std::move(plan), space = workspace->address()](CUstream stream) {
                   gemm_.run(*plan, space, kWorkspaceBytes, stream);
                 });
  }

  // ---- pooling ---------------------------------------------------------------------------------

  /// The kernel parameter ember_pool (kernel_sources.h).
  struct PoolParameters {
    int64_t in[3];
    int64_t step[3];
    int64_t outs[3];
    CUdeviceptr windows[3];
    double divisor;
    int count_padding;
    int has_divisor;
  };

  std::optional<Outputs> run(const ir::Pool& pool, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    if (!is_float(x.dtype) || x.shape.rank() > 5) return std::nullopt;
    PoolParameters p{};
    p.divisor = static_cast<double>(pool.divisor_override.value_or(1));
    p.has_divisor = pool.divisor_override.has_value() ? 1 : 0;
    p.count_padding = pool.count_include_pad ? 1 : 0;
    return pooled(ndarray::pool::pool_windows(pool, x.shape, outputs[0].shape), pool.op, p,
                  inputs[0], outputs);
  }

  std::optional<Outputs> run(const ir::AdaptivePool& pool, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    if (!is_float(x.dtype) || x.shape.rank() > 5) return std::nullopt;
    // Each adaptive window averages its own elements (ndarray's kAdaptiveDivisor).
    return pooled(ndarray::pool::adaptive_windows(x.shape, outputs[0].shape), pool.op,
                  PoolParameters{}, inputs[0], outputs);
  }

  /// Max (values, indices) or average pooling of x over windows; p holds the divisor's rule.
  Outputs pooled(const ndarray::pool::Windows& windows, ir::PoolOp op, PoolParameters p,
                 const Operand& x, std::span<const ir::TensorMeta> outputs) {
    // The tables, one upload: {first, count, padded_count} per output index of each axis.
    std::vector<int64_t> table;
    for (const ndarray::pool::Axis& axis : windows.axes) {
      for (const ndarray::pool::Window& w : axis.windows)
        table.insert(table.end(), {w.first, w.count, w.padded_count});
    }
    const BufferPtr tables = write(TensorData(table, Shape{static_cast<int64_t>(table.size())}));
    CUdeviceptr at = address_of(tables);
    for (std::size_t d = 0; d < 3; ++d) {
      const ndarray::pool::Axis& axis = windows.axes[d];
      p.in[d] = axis.in_size;
      p.step[d] = axis.step;
      p.outs[d] = static_cast<int64_t>(axis.windows.size());
      p.windows[d] = at;
      at += axis.windows.size() * 3 * sizeof(int64_t);
    }
    Outputs results;
    for (const ir::TensorMeta& meta : outputs)
      results.push_back(allocate(meta));
    const int64_t count = outputs[0].shape.num_elements();
    if (count == 0) return results;
    const bool max = op == ir::PoolOp::Max;
    const DType index_dtype = max ? outputs[1].dtype : DType::I64;
    LaunchArguments arguments;
    arguments.add(address_of(x));
    for (const BufferPtr& result : results)
      arguments.add(address_of(result));
    arguments.add(static_cast<long long>(windows.planes));
    arguments.add(p);
    launch(kernels_.function(pool_source, max ? "ember_max_pool" : "ember_avg_pool", x.meta.dtype,
                             index_dtype),
           grid_for(count), kThreads, arguments);
    return results;
  }

  // ---- indexing --------------------------------------------------------------------------------

  std::optional<Outputs> run(const ir::Gather& gather, const ir::Op& op,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    return gathered(op, inputs, outputs[0], gather.dim, false);
  }
  std::optional<Outputs> run(const ir::Select& select, const ir::Op& op,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    return gathered(op, inputs, outputs[0], select.dim, true);
  }
  std::optional<Outputs> run(const ir::Scatter& scatter, const ir::Op& op,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    if (scatter.update == ir::IndexUpdate::Assign)
      return assigned(op, inputs, outputs[0], scatter.dim, false);
    return scattered(op, inputs, outputs[0], scatter.dim, false);
  }
  std::optional<Outputs> run(const ir::SelectAssign& assign, const ir::Op& op,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    if (assign.update == ir::IndexUpdate::Assign)
      return assigned(op, inputs, outputs[0], assign.dim, true);
    return scattered(op, inputs, outputs[0], assign.dim, true);
  }

  /// Gather (select false: indices shaped as the output) or Select (a list along dim).
  std::optional<Outputs> gathered(const ir::Op& op, std::span<const Operand> inputs,
                                  const ir::TensorMeta& output, int64_t dim, bool select) {
    const Shape& x = inputs[0].meta.shape;
    if (output.shape.rank() > kProgramMaxRank) return std::nullopt;
    check_indices(op, inputs[1], dim, x[static_cast<std::size_t>(dim)]);
    auto out = allocate(output);
    const int64_t n = output.shape.num_elements();
    if (n == 0) return Outputs{out};
    LaunchArguments arguments;
    arguments.add(address_of(inputs[0]));
    arguments.add(address_of(inputs[1]));
    arguments.add(out->address());
    add_indexed_walk(arguments, n, output.shape, x.contiguous_strides(), dim, select);
    launch(kernels_.function(gather_source, "ember_gather", dtype_size(output.dtype),
                             inputs[1].meta.dtype),
           grid_for(n), kThreads, arguments);
    return Outputs{out};
  }

  /// Scatter or SelectAssign adding inputs[2] into a copy of inputs[0] (atomic adds: duplicate
  /// indices accumulate, in no fixed order).
  std::optional<Outputs> scattered(const ir::Op& op, std::span<const Operand> inputs,
                                   const ir::TensorMeta& output, int64_t dim, bool select) {
    const ir::TensorMeta& values = inputs[2].meta;
    if (!adds_atomically(output.dtype) || values.shape.rank() > kProgramMaxRank)
      return std::nullopt;
    check_indices(op, inputs[1], dim, output.shape[static_cast<std::size_t>(dim)]);
    auto out = allocate(output);
    copy_bytes(address_of(inputs[0]), out->address(), out->bytes());
    const int64_t n = values.shape.num_elements();
    if (n == 0) return Outputs{out};
    LaunchArguments arguments;
    arguments.add(address_of(inputs[2]));
    arguments.add(address_of(inputs[1]));
    arguments.add(out->address());
    add_indexed_walk(arguments, n, values.shape, output.shape.contiguous_strides(), dim, select);
    launch(kernels_.function(scatter_add_source, "ember_scatter_add", output.dtype,
                             inputs[1].meta.dtype),
           grid_for(n), kThreads, arguments);
    return Outputs{out};
  }

  /// Scatter or SelectAssign writing inputs[2] into a copy of inputs[0]. Of several values naming
  /// one element the last in values' row-major order wins, as in ndarray's loop; the threads run
  /// in no fixed order, so a first kernel records each element's last writer (atomicMax) and a
  /// second lets only that one write: the same bytes every run.
  std::optional<Outputs> assigned(const ir::Op& op, std::span<const Operand> inputs,
                                  const ir::TensorMeta& output, int64_t dim, bool select) {
    const ir::TensorMeta& values = inputs[2].meta;
    if (values.shape.rank() > kProgramMaxRank) return std::nullopt;
    const int64_t size = output.shape[static_cast<std::size_t>(dim)];
    check_indices(op, inputs[1], dim, size);
    auto out = allocate(output);
    copy_bytes(address_of(inputs[0]), out->address(), out->bytes());
    const int64_t n = values.shape.num_elements();
    if (n == 0) return Outputs{out};
    // select: the position along dim decides for every element it writes (scatter_assign_source),
    // so one claim per index and one slot per position of dim.
    const int64_t claims = select ? inputs[1].meta.shape.num_elements() : n;
    const int64_t slots = select ? size : output.shape.num_elements();
    const bool wide = claims >= int64_t{0xffffffff};
    auto winner = allocate(static_cast<std::size_t>(slots) *
                           (wide ? sizeof(unsigned long long) : sizeof(unsigned int)));
    queue_->fill(winner->address(), 0, winner->bytes());
    const auto kernel = [&](std::string_view name) {
      return kernels_.function(scatter_assign_source, name, dtype_size(output.dtype),
                               inputs[1].meta.dtype, wide);
    };
    const std::vector<int64_t> strides = output.shape.contiguous_strides();
    LaunchArguments claim;
    claim.add(address_of(inputs[1]));
    claim.add(winner->address());
    add_indexed_walk(claim, claims, values.shape, strides, dim, select);
    launch(kernel("ember_scatter_claim"), grid_for(claims), kThreads, claim);
    LaunchArguments arguments;
    arguments.add(address_of(inputs[2]));
    arguments.add(address_of(inputs[1]));
    arguments.add(out->address());
    arguments.add(winner->address());
    add_indexed_walk(arguments, n, values.shape, strides, dim, select);
    launch(kernel("ember_scatter_assign"), grid_for(n), kThreads, arguments);
    return Outputs{out};
  }

  static void add_indexed_walk(LaunchArguments& arguments, int64_t n, const Shape& walked,
                               const std::vector<int64_t>& strides, int64_t dim, bool select) {
    arguments.add(static_cast<long long>(n));
    arguments.add(static_cast<int>(walked.rank()));
    arguments.add(dims_of(walked.dims()));
    arguments.add(dims_of(strides));
    arguments.add(static_cast<int>(dim));
    arguments.add(static_cast<int>(select));
  }

  /// Throws ndarray's InvalidArgument when an index lies outside [0, size): the first one in
  /// order, as ndarray names it. Waits for the check (an index error belongs to its op's call).
  void check_indices(const ir::Op& op, const Operand& indices, int64_t dim, int64_t size) {
    const int64_t n = indices.meta.shape.num_elements();
    if (n == 0) return;
    const auto& known = static_cast<const DeviceBuffer&>(*indices.buffer).index_range();
    if (known && known->within(size)) return;  // no wait for the device
    auto first_bad = allocate(sizeof(unsigned long long));
    queue_->fill(first_bad->address(), 0xff, sizeof(unsigned long long));
    LaunchArguments arguments;
    arguments.add(address_of(indices));
    arguments.add(static_cast<long long>(n));
    arguments.add(static_cast<long long>(size));
    arguments.add(first_bad->address());
    launch(kernels_.function(check_indices_source, "ember_check_indices", indices.meta.dtype),
           grid_for(n), kThreads, arguments);
    unsigned long long position = 0;
    download(&position, first_bad->address(), sizeof position);
    if (position == ~0ull) return;
    const std::size_t element = dtype_size(indices.meta.dtype);
    std::vector<std::byte> bytes(element);
    download(bytes.data(), address_of(indices) + position * element, element);
    const TensorData value(std::move(bytes), Shape{1}, indices.meta.dtype);
    const std::string text = is_signed_int(indices.meta.dtype)
                                 ? std::to_string(value.to_vector<int64_t>()[0])
                                 : std::to_string(value.to_vector<uint64_t>()[0]);
    throw InvalidArgument("[" + ir::name(op) + "] index " + text + " out of range for dim " +
                          std::to_string(dim) + " of size " + std::to_string(size));
  }

  /// Copies bytes from the device to host memory, waiting for them.
  void download(void* to, CUdeviceptr from, std::size_t bytes) {
    queue_->drain();
    gpu_->check(gpu_->api().cuMemcpyDtoHAsync(to, from, bytes, gpu_->stream()),
                "cuMemcpyDtoHAsync");
    gpu_->synchronize();
  }

  std::optional<Outputs> run(const ir::Random& random, const ir::Op& /*op*/,
                             std::span<const Operand> /*inputs*/,
                             std::span<const ir::TensorMeta> outputs) {
    if (!draws_on_gpu(random.dtype)) return std::nullopt;
    auto out = allocate(outputs[0]);
    const int64_t n = outputs[0].shape.num_elements();
    if (n == 0) return Outputs{out};
    const Distribution& d = random.distribution;
    const ir::AffineDraw<float> affine = ir::affine_draw<float>(d);
    LaunchArguments arguments;
    arguments.add(out->address());
    arguments.add(static_cast<long long>(n));
    arguments.add(static_cast<unsigned long long>(random.key));
    arguments.add(affine.scale);
    arguments.add(affine.offset);
    arguments.add(static_cast<unsigned int>(ir::bernoulli_threshold_f32(d.a)));
    launch(kernels_.function(random_source, "ember_random", d.kind, random.dtype), grid_for(n),
           kThreads, arguments);
    return Outputs{out};
  }

  /// Adds ranges (a slice of shape) to a walk's strides and offset for that tensor.
  static void place_ranges(const std::vector<ir::SliceRange>& ranges, const Shape& shape,
                           std::vector<int64_t>& strides, int64_t& offset) {
    const std::vector<int64_t> contiguous = shape.contiguous_strides();
    for (std::size_t d = 0; d < ranges.size(); ++d) {
      strides.push_back(ir::slice_stride(ranges[d], contiguous[d]));
      offset += ranges[d].start * contiguous[d];
    }
  }

  static bool fits_copy_kernel(const Walk& walk) {
    return simplified(walk).sizes.size() <= kProgramMaxRank;
  }

  /// A new tensor of meta filled by walk from operand; nullopt when the walk has too many dims.
  std::optional<Outputs> copied(const Operand& operand, const ir::TensorMeta& meta,
                                const Walk& walk) {
    if (!fits_copy_kernel(walk)) return std::nullopt;
    auto out = allocate(meta);
    // A rearrangement of the same elements (an expand, a permute, a slice): a superset's range.
    out->set_index_range(static_cast<const DeviceBuffer&>(*operand.buffer).index_range());
    copy(address_of(operand), out->address(), dtype_size(meta.dtype), walk);
    return Outputs{out};
  }

  void copy(CUdeviceptr from, CUdeviceptr to, std::size_t element_size, const Walk& walk) {
    const Walk w = simplified(walk);
    const int64_t n =
        std::accumulate(w.sizes.begin(), w.sizes.end(), int64_t{1}, std::multiplies<>());
    if (n == 0 || std::ranges::count(walk.sizes, 0) != 0) return;
    if (w.sizes.size() == 1 && w.from_strides[0] == 1 && w.to_strides[0] == 1) {
      copy_bytes(from + static_cast<CUdeviceptr>(w.from_offset) * element_size,
                 to + static_cast<CUdeviceptr>(w.to_offset) * element_size,
                 static_cast<std::size_t>(n) * element_size);
      return;
    }
    if (const std::optional<std::size_t> a = transposed_dim(w)) {
      return transpose_copy(from, to, element_size, w, *a);
    }
    LaunchArguments arguments;
    arguments.add(from);
    arguments.add(to);
    arguments.add(static_cast<long long>(n));
    add_walk(arguments, w);
    launch(kernels_.function(copy_source, "ember_copy", element_size), grid_for(n), kThreads,
           arguments);
  }

  /// A simplified walk's rank, sizes, strides and offsets, as the copy kernels take them.
  static void add_walk(LaunchArguments& arguments, const Walk& w) {
    arguments.add(static_cast<int>(w.sizes.size()));
    arguments.add(dims_of(w.sizes));
    arguments.add(dims_of(w.from_strides));
    arguments.add(static_cast<long long>(w.from_offset));
    arguments.add(dims_of(w.to_strides));
    arguments.add(static_cast<long long>(w.to_offset));
  }

  /// The dim along which a simplified walk reads contiguously when that is not its last dim, along
  /// which it writes contiguously: a transpose, for ember_transpose_copy.
  static std::optional<std::size_t> transposed_dim(const Walk& w) {
    const std::size_t last = w.sizes.size() - 1;
    if (w.sizes.size() < 2 || w.to_strides[last] != 1 || w.from_strides[last] == 1) {
      return std::nullopt;
    }
    const auto a = std::ranges::find(w.from_strides, int64_t{1}) - w.from_strides.begin();
    if (a == static_cast<std::ptrdiff_t>(last) + 1) return std::nullopt;
    return static_cast<std::size_t>(a);
  }

  void transpose_copy(CUdeviceptr from, CUdeviceptr to, std::size_t element_size, const Walk& w,
                      std::size_t a) {
    const int64_t tiles_a = ceil_div(w.sizes[a], int64_t{32});
    const int64_t tiles_last = ceil_div(w.sizes.back(), int64_t{32});
    const int64_t planes =
        std::accumulate(w.sizes.begin(), w.sizes.end(), int64_t{1}, std::multiplies<>()) /
        (w.sizes[a] * w.sizes.back());
    LaunchArguments arguments;
    arguments.add(from);
    arguments.add(to);
    add_walk(arguments, w);
    arguments.add(static_cast<int>(a));
    arguments.add(static_cast<long long>(tiles_a));
    arguments.add(static_cast<long long>(tiles_last));
    arguments.add(static_cast<long long>(planes));
    const int64_t tiles = tiles_a * tiles_last * planes;
    const auto grid =
        static_cast<unsigned>(std::clamp<int64_t>(tiles, 1, int64_t{gpu_->multiprocessors()} * 32));
    launch(kernels_.function(copy_source, "ember_transpose_copy", element_size), grid, kThreads,
           arguments);
  }

  void copy_bytes(CUdeviceptr from, CUdeviceptr to, std::size_t bytes) {
    queue_->copy(to, from, bytes);
  }

  // ---- lines walked in order: cumulative ops, sort, arange -------------------------------------

  std::optional<Outputs> run(const ir::Cumulative& cumulative, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    if (x.dtype == DType::Bool) return std::nullopt;  // ir::infer refuses it; ndarray says so
    auto out = allocate(outputs[0]);
    const Lanes lanes = lanes_along(x.shape, cumulative.dim);
    if (lanes.rows * lanes.n * lanes.inner == 0) return Outputs{out};
    const auto kernel = [&](std::string_view name) {
      return kernels_.function(cumulative_source, name, cumulative.op, x.dtype);
    };
    LaunchArguments arguments;
    arguments.add(address_of(inputs[0]));
    arguments.add(out->address());
    arguments.add(static_cast<long long>(lanes.rows));
    arguments.add(static_cast<long long>(lanes.n));
    if (lanes.inner == 1) {
      launch(kernel("ember_cumulative_rows"), warp_rows_grid(lanes.rows), kRowThreads, arguments);
    } else {
      arguments.add(static_cast<long long>(lanes.inner));
      launch(kernel("ember_cumulative_columns"), grid_for(lanes.rows * lanes.inner), kThreads,
             arguments);
    }
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Arange& arange, const ir::Op& /*op*/,
                             std::span<const Operand> /*inputs*/,
                             std::span<const ir::TensorMeta> outputs) {
    if (!is_int(arange.dtype)) return std::nullopt;  // ir::infer refuses it; ndarray says so
    auto out = allocate(outputs[0]);
    const int64_t n = outputs[0].shape.num_elements();
    if (n == 0) return Outputs{out};
    out->set_index_range(arange_range(arange.dtype, arange.start, arange.step, n));
    LaunchArguments arguments;
    arguments.add(out->address());
    arguments.add(static_cast<long long>(n));
    arguments.add(static_cast<long long>(arange.start));
    arguments.add(static_cast<long long>(arange.step));
    launch(kernels_.function(arange_source, "ember_arange", arange.dtype), grid_for(n), kThreads,
           arguments);
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Sort& sort, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    const Lanes lanes = lanes_along(x.shape, sort.dim);
    // Lines longer than a block's shared memory holds are sorted on the host.
    if (lanes.n > kSortMaxLine) return std::nullopt;
    Outputs results{allocate(outputs[0]), allocate(outputs[1])};
    const int64_t lines = lanes.rows * lanes.inner;
    if (lines * lanes.n == 0) return results;
    const int64_t capacity = sort_capacity(lanes.n);
    LaunchArguments arguments;
    arguments.add(address_of(inputs[0]));
    arguments.add(address_of(results[0]));
    arguments.add(address_of(results[1]));
    arguments.add(static_cast<long long>(lines));
    arguments.add(static_cast<long long>(lanes.n));
    arguments.add(static_cast<long long>(lanes.inner));
    const auto grid =
        static_cast<unsigned>(std::min<int64_t>(lines, int64_t{gpu_->multiprocessors()} * 32));
    launch(kernels_.function(sort_source, "ember_sort", x.dtype, sort.index_dtype, sort.descending,
                             capacity),
           grid, sort_threads(capacity), arguments);
    return results;
  }

  // ---- gradients of average pooling, interpolation: gathers over ndarray's tables -------------

  std::optional<Outputs> run(const ir::AvgPoolGrad& grad, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    if (!is_float(inputs[0].meta.dtype) || grad.input_shape.rank() > 5) return std::nullopt;
    const ndarray::pool::Divisor divisor = ndarray::pool::pool_divisor(grad.pool);
    PoolGradParameters p{};
    p.divisor = static_cast<double>(divisor.override_value.value_or(1));
    p.has_divisor = divisor.override_value.has_value() ? 1 : 0;
    p.count_padding = divisor.count_padding ? 1 : 0;
    return pool_gradient(
        ndarray::pool::pool_windows(grad.pool, grad.input_shape, inputs[0].meta.shape), p,
        inputs[0], outputs[0]);
  }

  std::optional<Outputs> run(const ir::AdaptiveAvgPoolGrad& grad, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    if (!is_float(inputs[0].meta.dtype) || grad.input_shape.rank() > 5) return std::nullopt;
    // Each adaptive window averages its own elements (ndarray's kAdaptiveDivisor).
    return pool_gradient(ndarray::pool::adaptive_windows(grad.input_shape, inputs[0].meta.shape),
                         PoolGradParameters{}, inputs[0], outputs[0]);
  }

  /// The input gradient of average pooling over windows, from grad (the output gradient).
  Outputs pool_gradient(const ndarray::pool::Windows& windows, PoolGradParameters p,
                        const Operand& grad, const ir::TensorMeta& result) {
    auto out = allocate(result);
    const int64_t count = result.shape.num_elements();
    if (count == 0) return Outputs{out};
    const PoolGradTables tables = pool_grad_tables(windows);
    const BufferPtr uploaded =
        write(TensorData(tables.table, Shape{static_cast<int64_t>(tables.table.size())}));
    const CUdeviceptr at = address_of(uploaded);
    for (std::size_t d = 0; d < 3; ++d) {
      p.in[d] = windows.axes[d].in_size;
      p.outs[d] = static_cast<int64_t>(windows.axes[d].windows.size());
      p.windows[d] = at + tables.windows_at[d] * sizeof(int64_t);
      p.covers[d] = at + tables.covers_at[d] * sizeof(int64_t);
    }
    LaunchArguments arguments;
    arguments.add(address_of(grad));
    arguments.add(out->address());
    arguments.add(static_cast<long long>(windows.planes));
    arguments.add(p);
    launch(kernels_.function(avg_pool_grad_source, "ember_avg_pool_grad", grad.meta.dtype),
           grid_for(count), kThreads, arguments);
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Interpolate& interpolate, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    return resampled(interpolate, inputs[0], inputs[0].meta.shape, outputs[0], false);
  }

  std::optional<Outputs> run(const ir::InterpolateGrad& grad, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    return resampled(grad.interpolate, inputs[0], grad.input_shape, outputs[0], true);
  }

  // The fused attention (attention_kernels.h); a shape its kernels do not take runs on the host.
  std::optional<Outputs> run(const ir::Attention& attention, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const std::optional<AttentionShape> shape = attention_shape(attention, metas_of(inputs));
    if (!shape) return std::nullopt;
    if (uses_tensor_cores(*shape) && !copies_aligned(inputs.first(3))) return std::nullopt;
    auto out = allocate(outputs[0]);
    auto lse = allocate(outputs[1]);
    launch_attention(attention_forward_source, "ember_attention_forward", *shape, inputs,
                     {out->address(), lse->address()}, shape->parameters.l,
                     attention_forward_grid(*shape));
    return Outputs{out, lse};
  }

  /// The fused row ops arrive only when run directly (runs_fused_rows says no): on the host.
  template <ir::FusedRowOp Op>
  std::optional<Outputs> run(const Op& /*typed*/, const ir::Op& /*op*/,
                             std::span<const Operand> /*inputs*/,
                             std::span<const ir::TensorMeta> /*outputs*/) {
    return std::nullopt;
  }

  /// inputs: q, k, v[, mask], out, lse, grad_out. dQ first (it writes D = rowsum(dO out)), then
  /// dK and dV.
  std::optional<Outputs> run(const ir::AttentionGrad& grad, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const std::size_t forward_inputs = inputs.size() - 3;
    const std::optional<AttentionShape> shape =
        attention_shape(grad.attention, metas_of(inputs.first(forward_inputs)));
    if (!shape) return std::nullopt;
    if (backward_uses_tensor_cores(*shape) &&
        !(copies_aligned(inputs.first(3)) && copies_aligned(inputs.last(1)))) {
      return std::nullopt;
    }
    const CUdeviceptr out = address_of(inputs[forward_inputs]);
    const CUdeviceptr lse = address_of(inputs[forward_inputs + 1]);
    const CUdeviceptr grad_out = address_of(inputs[forward_inputs + 2]);
    auto dq = allocate(outputs[0]);
    auto dk = allocate(outputs[1]);
    auto dv = allocate(outputs[2]);
    const auto delta =
        allocate(static_cast<std::size_t>(shape->batches * shape->parameters.l) * sizeof(float));
    const AttentionGrid grid = attention_backward_grid(*shape);
    launch_attention(attention_backward_source, "ember_attention_dq", *shape, inputs,
                     {out, lse, grad_out, dq->address(), delta->address()}, shape->parameters.l,
                     grid);
    launch_attention(attention_backward_source, "ember_attention_dkdv", *shape, inputs,
                     {lse, grad_out, delta->address(), dk->address(), dv->address()},
                     shape->parameters.s, grid);
    return Outputs{dq, dk, dv};
  }

  /// Whether the tensor-core attention kernels may copy these operands 16 bytes at a time
  /// (cp.async): the pools align buffers to 64, this keeps a buffer from elsewhere from faulting.
  static bool copies_aligned(std::span<const Operand> operands) {
    return std::all_of(operands.begin(), operands.end(),
                       [](const Operand& x) { return address_of(x) % 16 == 0; });
  }

  static std::vector<ir::TensorMeta> metas_of(std::span<const Operand> inputs) {
    std::vector<ir::TensorMeta> metas;
    metas.reserve(inputs.size());
    for (const Operand& input : inputs)
      metas.push_back(input.meta);
    return metas;
  }

  /// Launches kernel `name` of make_source(shape) over blocks of grid.rows of the batch entries'
  /// `rows` (queries or keys): its arguments q, k, v and the mask (0 without one), then `rest`,
  /// then the shape's parameters.
  void launch_attention(std::string (*make_source)(const AttentionShape&), std::string_view name,
                        const AttentionShape& shape, std::span<const Operand> inputs,
                        std::initializer_list<CUdeviceptr> rest, int64_t rows, AttentionGrid grid) {
    LaunchArguments arguments;
    for (std::size_t i = 0; i < 3; ++i)
      arguments.add(address_of(inputs[i]));
    arguments.add(shape.mask == AttentionMask::None ? CUdeviceptr{0} : address_of(inputs[3]));
    for (const CUdeviceptr address : rest)
      arguments.add(address);
    arguments.add(shape.parameters);
    const int64_t blocks = shape.batches * ((rows + grid.rows - 1) / grid.rows);
    launch(kernels_.function(make_source, name, shape), static_cast<unsigned>(blocks), grid.threads,
           arguments);
  }

  /// src resampled by op's passes (one a spatial dim, in double between them, in
  /// ndarray::interpolate::pass_order: the dims that shrink first): from input's sizes to
  /// result's, or transposed (the gradient), from src's sizes back to input's (result's).
  std::optional<Outputs> resampled(const ir::Interpolate& op, const Operand& src,
                                   const Shape& input, const ir::TensorMeta& result,
                                   bool transposed) {
    const DType dtype = src.meta.dtype;
    if (!is_float(dtype) || input.rank() < 3) return std::nullopt;
    auto out = allocate(result);
    if (result.shape.num_elements() == 0) return Outputs{out};
    const Shape& output = transposed ? src.meta.shape : result.shape;
    const std::vector<ndarray::interpolate::DimPlan> plans =
        ndarray::interpolate::plans_for(op, input, output, dtype);
    const CUfunction function = kernels_.function(resample_source, "ember_resample", dtype);
    std::vector<int64_t> dims = src.meta.shape.dims();
    CUdeviceptr from = address_of(src);
    std::shared_ptr<DeviceBuffer> intermediate;
    const std::vector<std::size_t> order = ndarray::interpolate::pass_order(plans, transposed);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t dim = order[k];
      const std::size_t axis = dim + 2;
      const ndarray::interpolate::DimPlan& plan = plans[dim];
      int64_t outer = 1;
      int64_t inner = 1;
      for (std::size_t d = 0; d < dims.size(); ++d) {
        if (d < axis) outer *= dims[d];
        if (d > axis) inner *= dims[d];
      }
      const int64_t src_size = dims[axis];
      dims[axis] = transposed ? plan.in : plan.out;
      const int64_t count = outer * dims[axis] * inner;
      const bool last = k + 1 == plans.size();
      // Freed buffers are reused by later work on the stream only: the next pass may drop this
      // one's source.
      std::shared_ptr<DeviceBuffer> to =
          last ? out : allocate(static_cast<std::size_t>(count) * sizeof(double));
      const std::vector<int64_t> table = resample_table(plan, transposed);
      const BufferPtr uploaded =
          write(TensorData(table, Shape{static_cast<int64_t>(table.size())}));
      LaunchArguments arguments;
      arguments.add(from);
      arguments.add(to->address());
      arguments.add(k == 0 ? 1 : 0);
      arguments.add(last ? 1 : 0);
      arguments.add(static_cast<long long>(outer));
      arguments.add(static_cast<long long>(src_size));
      arguments.add(static_cast<long long>(dims[axis]));
      arguments.add(static_cast<long long>(inner));
      arguments.add(address_of(uploaded));
      launch(function, grid_for(count), kThreads, arguments);
      from = to->address();
      intermediate = std::move(to);
    }
    return Outputs{out};
  }

  /// op run by ndarray's kernel on the host, on copies of the inputs; its results uploaded.
  Outputs run_on_host(const ir::Op& op, std::span<const Operand> inputs,
                      std::span<const ir::TensorMeta> outputs) {
    return ndarray::run_on_host(*this, op, inputs, outputs);
  }

  std::shared_ptr<GpuContext> gpu_;
  std::shared_ptr<LaunchQueue> queue_;
  std::shared_ptr<pools::MemoryManager> memory_;
  KernelCache kernels_;
  /// elementwise's kernels by ir::lone_op_key; nullopt: the emitter refuses the op (host).
  std::unordered_map<std::string, std::optional<ProgramKernel>> lone_kernels_;
  std::mutex lone_kernels_mutex_;  // guards lone_kernels_
  Gemm gemm_;
  /// Convolutions through cuDNN where it is there (its handle, its algorithms by shape).
  CudnnConvolutions cudnn_;
  /// f32 products in TF32: MatmulPrecision::High in the device's settings.
  std::atomic<bool> tf32_{false};
  std::mutex workspace_mutex_;  // guards workspace_
  std::shared_ptr<DeviceBuffer> workspace_;
  std::string description_;
};

}  // namespace

std::unique_ptr<backend::Backend> make_cuda_backend(const Api& api, int index) {
  return std::make_unique<fusion::FusionBackend>(std::make_unique<CudaBackend>(api, index));
}

}  // namespace ember::cuda
