#include "backends/wgpu/command_stream.h"

#include <wgpu.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ember/error.h"

namespace ember::wgpu {
namespace {

/// Commands recorded before the batch is submitted without being asked.
constexpr int kBatch = 64;
/// The size of a batch's parameter buffer: some 64 blocks of a few hundred bytes.
constexpr uint64_t kParameterBytes = 64 * 1024;

void on_mapped(WGPUMapAsyncStatus status, WGPUStringView /*message*/, void* result,
               void* /*unused*/) {
  *static_cast<int*>(result) = status == WGPUMapAsyncStatus_Success ? 1 : -1;
}

}  // namespace

CommandStream::CommandStream(std::shared_ptr<Context> context) : context_(std::move(context)) {}

CommandStream::~CommandStream() {
  if (pass_ != nullptr) wgpuComputePassEncoderRelease(pass_);
  if (encoder_ != nullptr) wgpuCommandEncoderRelease(encoder_);
  if (parameters_ != nullptr) wgpuBufferRelease(parameters_);
  if (staging_ != nullptr) wgpuBufferRelease(staging_);
}

WGPUCommandEncoder CommandStream::encoder() {
  context_->check_usable();
  end_compute_pass();
  if (encoder_ == nullptr) encoder_ = wgpuDeviceCreateCommandEncoder(context_->device(), nullptr);
  return encoder_;
}

WGPUComputePassEncoder CommandStream::compute_pass() {
  if (pass_ == nullptr) pass_ = wgpuCommandEncoderBeginComputePass(encoder(), nullptr);
  return pass_;
}

void CommandStream::end_compute_pass() {
  if (pass_ == nullptr) return;
  wgpuComputePassEncoderEnd(pass_);
  wgpuComputePassEncoderRelease(pass_);
  pass_ = nullptr;
}

uint64_t CommandStream::parameter_offset(uint64_t bytes) {
  const uint64_t alignment =
      std::max<uint64_t>(context_->adapter().limits.minStorageBufferOffsetAlignment, 4);
  uint64_t offset = (parameter_bytes_.size() + alignment - 1) / alignment * alignment;
  if (parameters_ != nullptr && offset + bytes > kParameterBytes) {
    flush();
    offset = 0;
  }
  if (parameters_ == nullptr) {
    WGPUBufferDescriptor descriptor = WGPU_BUFFER_DESCRIPTOR_INIT;
    descriptor.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst;
    descriptor.size = std::max(kParameterBytes, bytes);
    parameters_ = wgpuDeviceCreateBuffer(context_->device(), &descriptor);
  }
  parameter_bytes_.resize(offset + bytes);
  return offset;
}

void CommandStream::dispatch(const Kernel& kernel, std::span<const std::byte> parameters,
                             std::span<const BufferRange> tensors, uint32_t groups_x,
                             uint32_t groups_y, uint32_t groups_z) {
  context_->check_usable();
  const uint64_t block_bytes = padded(std::max<uint64_t>(parameters.size(), 4));
  const uint64_t offset = parameter_offset(block_bytes);
  std::copy(parameters.begin(), parameters.end(),
            parameter_bytes_.begin() + static_cast<std::ptrdiff_t>(offset));
  std::vector<WGPUBindGroupEntry> entries(tensors.size() + 1, WGPU_BIND_GROUP_ENTRY_INIT);
  entries[0].binding = 0;
  entries[0].buffer = parameters_;
  entries[0].offset = offset;
  entries[0].size = block_bytes;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    entries[k + 1].binding = static_cast<uint32_t>(k + 1);
    entries[k + 1].buffer = tensors[k].buffer;
    entries[k + 1].offset = tensors[k].offset;
    entries[k + 1].size = padded(tensors[k].bytes);
  }
  WGPUBindGroupDescriptor group = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  group.layout = kernel.layout;
  group.entryCount = entries.size();
  group.entries = entries.data();
  const WGPUBindGroup bindings = wgpuDeviceCreateBindGroup(context_->device(), &group);
  const WGPUComputePassEncoder pass = compute_pass();
  wgpuComputePassEncoderSetPipeline(pass, kernel.pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, bindings, 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, groups_x, groups_y, groups_z);
  // wgpu keeps what recorded work uses alive until it has run.
  wgpuBindGroupRelease(bindings);
  if (++commands_ >= kBatch) flush();
}

void CommandStream::fill_zero(const BufferRange& range) {
  wgpuCommandEncoderClearBuffer(encoder(), range.buffer, range.offset, padded(range.bytes));
  if (++commands_ >= kBatch) flush();
}

void CommandStream::upload(std::span<const std::byte> bytes, const BufferRange& range) {
  flush();
  if (bytes.empty()) return;
  if (bytes.size() % 4 == 0) {
    wgpuQueueWriteBuffer(context_->queue(), range.buffer, range.offset, bytes.data(), bytes.size());
  } else {
    // Writes are whole words: the slice's padding takes the rest.
    std::vector<std::byte> words(padded(bytes.size()));
    std::memcpy(words.data(), bytes.data(), bytes.size());
    wgpuQueueWriteBuffer(context_->queue(), range.buffer, range.offset, words.data(), words.size());
  }
  context_->check_usable();
}

WGPUBuffer CommandStream::staging(uint64_t bytes) {
  if (staging_bytes_ >= bytes) return staging_;
  if (staging_ != nullptr) wgpuBufferRelease(staging_);
  WGPUBufferDescriptor descriptor = WGPU_BUFFER_DESCRIPTOR_INIT;
  descriptor.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  descriptor.size = bytes;
  staging_ = wgpuDeviceCreateBuffer(context_->device(), &descriptor);
  staging_bytes_ = bytes;
  return staging_;
}

void CommandStream::download(const BufferRange& range, std::span<std::byte> out) {
  if (out.empty()) {
    sync();
    return;
  }
  const uint64_t bytes = padded(out.size());
  const WGPUBuffer target = staging(bytes);
  copy_to_readable(range.buffer, range.offset, target, bytes);
  read_mapped(target, out);
}

void CommandStream::copy_to_readable(WGPUBuffer source, uint64_t offset, WGPUBuffer target,
                                     uint64_t bytes) {
  wgpuCommandEncoderCopyBufferToBuffer(encoder(), source, offset, target, 0, bytes);
  ++commands_;
  flush();
}

void CommandStream::read_mapped(WGPUBuffer target, std::span<std::byte> out) {
  const uint64_t bytes = padded(out.size());
  int mapped = 0;
  WGPUBufferMapCallbackInfo callback = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_AllowSpontaneous;
  callback.callback = on_mapped;
  callback.userdata1 = &mapped;
  wgpuBufferMapAsync(target, WGPUMapMode_Read, 0, bytes, callback);
  while (mapped == 0 && !context_->poisoned())
    wgpuDevicePoll(context_->device(), true, nullptr);
  context_->check_usable();
  if (mapped < 0)
    throw ExecutionError("[" + context_->name() + "] reading a tensor back failed (map)");
  std::memcpy(out.data(), wgpuBufferGetConstMappedRange(target, 0, bytes), out.size());
  wgpuBufferUnmap(target);
}

void CommandStream::flush() {
  if (encoder_ == nullptr) return;
  end_compute_pass();
  if (parameters_ != nullptr) {
    // A queue write lands before the next submission: the batch's blocks, then its commands.
    parameter_bytes_.resize(padded(parameter_bytes_.size()));
    wgpuQueueWriteBuffer(context_->queue(), parameters_, 0, parameter_bytes_.data(),
                         parameter_bytes_.size());
    wgpuBufferRelease(parameters_);  // wgpu keeps it while the batch uses it
    parameters_ = nullptr;
    parameter_bytes_.clear();
  }
  const WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder_, nullptr);
  wgpuCommandEncoderRelease(encoder_);
  encoder_ = nullptr;
  commands_ = 0;
  // An invalid command (reported at Finish, through the error callback) poisons the context;
  // its batch is not submitted, as wgpu-native aborts the process on an invalid submission.
  if (context_->poisoned()) {
    wgpuCommandBufferRelease(commands);
    context_->check_usable();
  }
  wgpuQueueSubmit(context_->queue(), 1, &commands);
  wgpuCommandBufferRelease(commands);
  context_->check_usable();
}

void CommandStream::sync() {
  flush();
  context_->wait();
}

}  // namespace ember::wgpu
