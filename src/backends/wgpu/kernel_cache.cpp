#include "backends/wgpu/kernel_cache.h"

#include <wgpu.h>

#include <string>

#include "ember/error.h"

namespace ember::wgpu {
namespace {

void on_validation_scope(WGPUPopErrorScopeStatus /*status*/, WGPUErrorType type,
                         WGPUStringView message, void* error, void* /*unused*/) {
  if (type == WGPUErrorType_NoError) return;
  auto& text = *static_cast<std::string*>(error);
  text = message.data == nullptr         ? "an error without a message"
         : message.length == WGPU_STRLEN ? std::string(message.data)
                                         : std::string(message.data, message.length);
}

}  // namespace

KernelCache::~KernelCache() {
  for (const auto& [source, kernel] : kernels_) {
    wgpuBindGroupLayoutRelease(kernel.layout);
    wgpuComputePipelineRelease(kernel.pipeline);
  }
}

const Kernel& KernelCache::kernel(const std::string& source) {
  const auto found = kernels_.find(source);
  if (found != kernels_.end()) return found->second;
  return kernels_.emplace(source, make(source)).first->second;
}

Kernel KernelCache::make(const std::string& source) {
  context_->check_usable();
  const WGPUDevice device = context_->device();
  wgpuDevicePushErrorScope(device, WGPUErrorFilter_Validation);
  WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
  wgsl.code = view(source);
  WGPUShaderModuleDescriptor module_descriptor = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  module_descriptor.nextInChain = &wgsl.chain;
  // Trusted: naga adds no index clamps and no loop counters. ember writes every kernel itself and
  // keeps its indices within the bindings it passes (as the vulkan kernels, which run without
  // such checks); the driver's robust buffer access still stands behind them where wgpu enables it.
  const WGPUShaderModule module =
      wgpuDeviceCreateShaderModuleTrusted(device, &module_descriptor, WGPUShaderRuntimeChecks_None);
  WGPUComputePipelineDescriptor descriptor = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  descriptor.compute.module = module;
  const std::string entry = "main";
  descriptor.compute.entryPoint = view(entry);
  Kernel kernel;
  kernel.pipeline = wgpuDeviceCreateComputePipeline(device, &descriptor);
  wgpuShaderModuleRelease(module);
  std::string error;
  WGPUPopErrorScopeCallbackInfo callback = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_AllowSpontaneous;
  callback.callback = on_validation_scope;
  callback.userdata1 = &error;
  wgpuDevicePopErrorScope(device, callback);
  if (!error.empty() || kernel.pipeline == nullptr) {
    if (kernel.pipeline != nullptr) wgpuComputePipelineRelease(kernel.pipeline);
    throw ExecutionError("[" + context_->name() + "] wgpu-native rejected a kernel: " + error +
                         "\n" + source);
  }
  kernel.layout = wgpuComputePipelineGetBindGroupLayout(kernel.pipeline, 0);
  return kernel;
}

}  // namespace ember::wgpu
