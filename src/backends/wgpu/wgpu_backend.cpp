#include "backends/wgpu/wgpu_backend.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/pools/memory_manager.h"
#include "backends/shader/attention_kernels.h"
#include "backends/shader/cumulative_kernels.h"
#include "backends/shader/index_copy_kernels.h"
#include "backends/shader/random_kernels.h"
#include "backends/shader/reduce_kernels.h"
#include "backends/shader/row_kernels.h"
#include "backends/shader/shader_backend.h"
#include "backends/shader/softmax_kernels.h"
#include "backends/shader/sort_kernels.h"
#include "backends/wgpu/attention_source.h"
#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/conv_pool_kernels.h"
#include "backends/wgpu/cumulative_sources.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/index_copy_sources.h"
#include "backends/wgpu/interpolate_kernel.h"
#include "backends/wgpu/kernel_cache.h"
#include "backends/wgpu/matmul_kernel.h"
#include "backends/wgpu/program_kernels.h"
#include "backends/wgpu/random_source.h"
#include "backends/wgpu/reduce_sources.h"
#include "backends/wgpu/row_sources.h"
#include "backends/wgpu/softmax_sources.h"
#include "backends/wgpu/sort_sources.h"
#include "backends/wgpu/timestamps.h"
#include "ember/error.h"
#include "fusion/fusion_backend.h"
#include "ir/program.h"

namespace ember::wgpu {
namespace {

class WgpuBackend final : public shader::ShaderBackend<WgpuBackend, DevicePages, BufferRange> {
 public:
  WgpuBackend(const Adapter& adapter, const std::string& name)
      : context_(std::make_shared<Context>(adapter, name)),
        stream_(std::make_shared<CommandStream>(context_)),
        pages_(std::make_shared<DevicePages>(context_)),
        memory_(std::make_shared<pools::MemoryManager>(pages_, name)),
        kernels_(context_),
        runner_(device_limits(adapter), kernels_, *stream_),
        programs_(runner_, wgsl_emitter()),
        matmul_(runner_),
        reduce_(runner_, reduce_sources(), scratch()),
        softmax_(runner_, softmax_sources()),
        sort_(runner_, sort_sources, scratch()),
        random_(runner_, random_source()),
        conv_pool_(make_conv_pool_kernels(adapter, runner_)),
        interpolate_(make_interpolate_kernels(adapter, runner_)),
        index_copy_(runner_, index_copy_sources()),
        cumulative_(runner_, cumulative_source, false),  // WGSL has no doubles
        attention_(runner_, attention_source),
        rows_(runner_, row_sources(), declare_row_tensor) {}

  ~WgpuBackend() override { finish(); }
  WgpuBackend(const WgpuBackend&) = delete;
  WgpuBackend& operator=(const WgpuBackend&) = delete;

  std::string name() const override { return "wgpu"; }
  std::string description() const override { return describe(context_->adapter()); }
  bool supports_dtype(DType dtype) const override { return computes_in(dtype); }

  std::shared_ptr<backend::DeviceTimestamp> record_timestamp() override {
    context_->check_usable();
    // Without timestamp queries, profile uses the host clock between two syncs.
    if (!context_->adapter().timestamps) return nullptr;
    return wgpu::record_timestamp(stream_, context_);
  }

  void memory_cleanup() override {
    stream_->sync();
    memory_->cleanup();
  }

 private:
  static std::string describe(const Adapter& adapter) {
    std::string text =
        adapter.name + " (WebGPU through wgpu-native over " + adapter.backend + "; dtypes:";
    for (DType dtype : kAllDTypes)
      if (computes_in(dtype)) text += " " + std::string(dtype_name(dtype));
    return text + (adapter.timestamps ? "; timestamps)" : "; no timestamps)");
  }

  // ---- what ShaderBackend reads (backends/shader/shader_backend.h) ----
  friend class shader::ShaderBackend<WgpuBackend, DevicePages, BufferRange>;
  static constexpr std::string_view kDocs = "docs/backends/wgpu.md";

  std::shared_ptr<Context> context_;
  std::shared_ptr<CommandStream> stream_;
  std::shared_ptr<DevicePages> pages_;
  std::shared_ptr<pools::MemoryManager> memory_;
  KernelCache kernels_;
  KernelRunner runner_;  ///< what every kernel class below records through
  ProgramKernels programs_;
  MatmulKernel matmul_;
  shader::ReduceKernel<KernelRunner> reduce_;
  shader::SoftmaxKernel<KernelRunner> softmax_;
  shader::SortKernel<KernelRunner> sort_;
  shader::RandomKernel<KernelRunner> random_;
  ConvPoolKernels conv_pool_;
  InterpolateKernels interpolate_;
  shader::IndexCopyKernel<KernelRunner> index_copy_;
  shader::CumulativeKernel<KernelRunner> cumulative_;
  shader::AttentionKernel<KernelRunner> attention_;
  shader::RowKernels<KernelRunner> rows_;
};

}  // namespace

bool computes_in(DType dtype) {
  // WGSL computes in none of bf16, f64, i64, u64. The last three are stored and computed on the
  // host, exact (autodiff's f64 gradients and the integer indices need them); bf16, the spec's
  // example of a dtype a GPU stores but does not compute, is reported as such, as on vulkan.
  return dtype != DType::BF16;
}

std::unique_ptr<backend::Backend> make_wgpu_backend(const Adapter& adapter,
                                                    const std::string& name) {
  return std::make_unique<fusion::FusionBackend>(std::make_unique<WgpuBackend>(adapter, name));
}

}  // namespace ember::wgpu
