#include "backends/vulkan/kernel_cache.h"

#include <shaderc/shaderc.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/vulkan/kernel_profile.h"
#include "ember/error.h"

namespace ember::vulkan {
namespace {

/// The first word of every SPIR-V module (the SPIR-V specification, "Physical Layout").
constexpr uint32_t kSpirvMagic = 0x07230203;

/// Whether code is a SPIR-V module: whole 32-bit words, starting with SPIR-V's magic number.
bool is_spirv(const std::string& code) {
  uint32_t magic = 0;
  if (code.size() < sizeof magic || code.size() % sizeof magic != 0) return false;
  std::memcpy(&magic, code.data(), sizeof magic);
  return magic == kSpirvMagic;
}

}  // namespace

KernelCache::KernelCache(std::shared_ptr<Context> context)
    : context_(std::move(context)), disk_("vulkan", ".spv") {
  unsigned version = 0;
  unsigned revision = 0;
  shaderc_get_spv_version(&version, &revision);
  compiler_ = "shaderc spv " + std::to_string(version) + "." + std::to_string(revision) + "\n";
}

KernelCache::~KernelCache() {
  const VkDevice device = context_->device();
  for (const auto& [source, kernel] : kernels_) {
    vkDestroyPipeline(device, kernel.pipeline, nullptr);
    vkDestroyPipelineLayout(device, kernel.layout, nullptr);
    vkDestroyDescriptorSetLayout(device, kernel.set_layout, nullptr);
  }
}

const Kernel& KernelCache::kernel(const std::string& source, uint32_t tensors) {
  const std::lock_guard lock(mutex_);
  if (const auto found = kernels_.find(source); found != kernels_.end()) return found->second;
  Kernel made = make(spirv(source), tensors);
  made.writes = written_tensors(source, tensors);
  made.label = KernelProfile::label_of(source);
  return kernels_.emplace(source, std::move(made)).first->second;
}

int KernelCache::compilations() const {
  const std::lock_guard lock(mutex_);
  return compilations_;
}

// Note: a file of the disk cache can pass the cache's own checks and still not hold SPIR-V: the
// folder is shared by every build of the user, and a build of another file format reads the
// other's words as its code (a build before the code's length and hash were stored took them as
// the first 16 bytes of the SPIR-V). lavapipe makes a shader module of such bytes and fails the
// pipeline with VK_ERROR_UNKNOWN, so the device looked broken (docs/backends/vulkan.md). Code that
// is not SPIR-V is a miss, compiled again and stored over.
std::string KernelCache::spirv(const std::string& source) {
  const std::string key = compiler_ + source;
  if (std::string code = disk_.load(key); is_spirv(code)) return code;
  std::string code = compile(source);
  disk_.store(key, code);
  return code;
}

std::string KernelCache::compile(const std::string& source) {
  const shaderc_compiler_t compiler = shaderc_compiler_initialize();
  const shaderc_compile_options_t options = shaderc_compile_options_initialize();
  shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan,
                                         shaderc_env_version_vulkan_1_1);
  // The driver optimizes the SPIR-V; shaderc's optimizer would only add compile time.
  shaderc_compile_options_set_optimization_level(options, shaderc_optimization_level_zero);
  const shaderc_compilation_result_t result =
      shaderc_compile_into_spv(compiler, source.c_str(), source.size(), shaderc_glsl_compute_shader,
                               "ember.comp", "main", options);
  const bool compiled =
      shaderc_result_get_compilation_status(result) == shaderc_compilation_status_success;
  std::string code;
  std::string log;
  if (compiled) {
    code.assign(shaderc_result_get_bytes(result), shaderc_result_get_length(result));
  } else {
    log = shaderc_result_get_error_message(result);
  }
  shaderc_result_release(result);
  shaderc_compile_options_release(options);
  shaderc_compiler_release(compiler);
  if (!compiled)
    throw ExecutionError("[" + context_->name() + "] shaderc could not compile a kernel:\n" + log +
                         "\nsource:\n" + source);
  ++compilations_;
  return code;
}

Kernel KernelCache::make(const std::string& spirv, uint32_t tensors) {
  const VkDevice device = context_->device();
  Kernel kernel;
  kernel.tensors = tensors;
  std::vector<VkDescriptorSetLayoutBinding> bindings(tensors + 1);
  for (uint32_t b = 0; b <= tensors; ++b)
    bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set.bindingCount = tensors + 1;
  set.pBindings = bindings.data();
  context_->check(vkCreateDescriptorSetLayout(device, &set, nullptr, &kernel.set_layout),
                  "vkCreateDescriptorSetLayout");
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &kernel.set_layout;
  VkShaderModule module = VK_NULL_HANDLE;
  try {
    context_->check(vkCreatePipelineLayout(device, &layout, nullptr, &kernel.layout),
                    "vkCreatePipelineLayout");
    VkShaderModuleCreateInfo code{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    code.codeSize = spirv.size();
    code.pCode = reinterpret_cast<const uint32_t*>(spirv.data());
    context_->check(vkCreateShaderModule(device, &code, nullptr, &module), "vkCreateShaderModule");
    VkComputePipelineCreateInfo pipeline{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipeline.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline.stage.module = module;
    pipeline.stage.pName = "main";
    pipeline.layout = kernel.layout;
    context_->check(
        vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipeline, nullptr, &kernel.pipeline),
        "vkCreateComputePipelines");
  } catch (...) {
    vkDestroyShaderModule(device, module, nullptr);
    vkDestroyPipelineLayout(device, kernel.layout, nullptr);
    vkDestroyDescriptorSetLayout(device, kernel.set_layout, nullptr);
    throw;
  }
  vkDestroyShaderModule(device, module, nullptr);
  return kernel;
}

}  // namespace ember::vulkan
