#include "backends/vulkan/vulkan_backend.h"

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
#include "backends/vulkan/attention_source.h"
#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/conv_pool_kernels.h"
#include "backends/vulkan/cumulative_sources.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/index_copy_sources.h"
#include "backends/vulkan/interpolate_kernel.h"
#include "backends/vulkan/kernel_cache.h"
#include "backends/vulkan/matmul_kernel.h"
#include "backends/vulkan/program_kernels.h"
#include "backends/vulkan/random_source.h"
#include "backends/vulkan/reduce_sources.h"
#include "backends/vulkan/row_sources.h"
#include "backends/vulkan/softmax_sources.h"
#include "backends/vulkan/sort_sources.h"
#include "ember/error.h"
#include "fusion/fusion_backend.h"
#include "ir/program.h"

namespace ember::vulkan {
namespace {

class VulkanBackend final : public shader::ShaderBackend<VulkanBackend, DevicePages, BufferRange> {
 public:
  VulkanBackend(const PhysicalDevice& physical, const std::string& name)
      : context_(std::make_shared<Context>(physical, name)),
        stream_(std::make_shared<CommandStream>(context_)),
        // A page goes back only once no submitted batch can still use it.
        pages_(
            std::make_shared<DevicePages>(context_, false, [stream = stream_] { stream->sync(); })),
        memory_(std::make_shared<pools::MemoryManager>(pages_, name)),
        kernels_(context_),
        runner_(device_limits(physical), kernels_, *stream_),
        programs_(runner_, glsl_emitter(context_->features())),
        matmul_(runner_, context_->features()),
        reduce_(runner_, reduce_sources(context_->features()), scratch()),
        softmax_(runner_, softmax_sources()),
        sort_(runner_, sort_sources, scratch()),
        random_(runner_, random_source()),
        conv_pool_(make_conv_pool_kernels(physical, runner_)),
        interpolate_(make_interpolate_kernels(physical, runner_)),
        index_copy_(runner_, index_copy_sources()),
        cumulative_(runner_, cumulative_source, context_->features().float64),
        attention_(runner_, attention_source),
        rows_(runner_, row_sources(), declare_row_tensor) {}

  ~VulkanBackend() override { finish(); }
  VulkanBackend(const VulkanBackend&) = delete;
  VulkanBackend& operator=(const VulkanBackend&) = delete;

  std::string name() const override { return "vulkan"; }
  std::string description() const override { return describe(context_->physical()); }
  bool supports_dtype(DType dtype) const override {
    return computes_in(context_->features(), dtype);
  }

  std::shared_ptr<backend::DeviceTimestamp> record_timestamp() override {
    context_->check_usable();
    return stream_->timestamp();
  }

  void memory_cleanup() override {
    memory_->cleanup();
    stream_->staging().cleanup();
  }

 private:
  static std::string describe(const PhysicalDevice& physical) {
    const Features& f = physical.features;
    std::string text = physical.name + " (Vulkan " +
                       std::to_string(VK_API_VERSION_MAJOR(physical.api_version)) + "." +
                       std::to_string(VK_API_VERSION_MINOR(physical.api_version)) + "; dtypes:";
    for (DType dtype : kAllDTypes)
      if (computes_in(f, dtype)) text += " " + std::string(dtype_name(dtype));
    if (f.cooperative_f16)
      text += "; f16 cooperative matrices " + std::to_string(f.cooperative_f16->m) + "x" +
              std::to_string(f.cooperative_f16->n) + "x" + std::to_string(f.cooperative_f16->k);
    text += f.timestamp_period > 0 ? "; timestamps)" : "; no timestamps)";
    return text;
  }

  // ---- what ShaderBackend reads (backends/shader/shader_backend.h) ----
  friend class shader::ShaderBackend<VulkanBackend, DevicePages, BufferRange>;
  static constexpr std::string_view kDocs = "docs/backends/vulkan.md";

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

bool computes_in(const Features& features, DType dtype) {
  switch (dtype) {
    case DType::F64:
      return features.float64;
    case DType::F32:
      return true;
    case DType::F16:
      return features.float16 && features.storage16;
    case DType::BF16:
      return false;
    case DType::I64:
    case DType::I32:
    case DType::I16:
    case DType::I8:
    case DType::U64:
    case DType::U32:
    case DType::U16:
    case DType::U8:
    case DType::Bool:
      return true;
  }
  return false;
}

std::unique_ptr<backend::Backend> make_vulkan_backend(const PhysicalDevice& physical,
                                                      const std::string& name) {
  return std::make_unique<fusion::FusionBackend>(std::make_unique<VulkanBackend>(physical, name));
}

}  // namespace ember::vulkan
