#include "backends/vulkan/command_stream.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "ember/error.h"

namespace ember::vulkan {

/// A block of the staging pools, mapped: freed when the last holder lets go.
class CommandStream::StagingBlock {
 public:
  StagingBlock(pools::MemoryManager& pools, const DevicePages& pages, std::size_t bytes)
      : pools_(pools), bytes_(std::max<std::size_t>(bytes, 4)), block_(pools.allocate(bytes_)) {
    range_ = pages.locate(block_, bytes_);
  }
  ~StagingBlock() { pools_.deallocate(block_, bytes_); }
  StagingBlock(const StagingBlock&) = delete;
  StagingBlock& operator=(const StagingBlock&) = delete;
  const BufferRange& range() const { return range_; }

 private:
  pools::MemoryManager& pools_;
  std::size_t bytes_;
  std::byte* block_;
  BufferRange range_;
};

/// A timestamp query written after the work recorded before it (profile's device clock).
class VulkanTimestamp final : public backend::DeviceTimestamp {
 public:
  VulkanTimestamp(std::shared_ptr<CommandStream> stream, VkQueryPool pool, uint64_t serial)
      : stream_(std::move(stream)), pool_(pool), serial_(serial) {}
  ~VulkanTimestamp() override {
    // The batch that writes the query may still be pending (a window nobody resolved, or an
    // empty one): destroying a pool a pending command uses is undefined behaviour.
    try {
      stream_->wait_for(serial_);
    } catch (...) {
      // A poisoned device: its work is gone.
    }
    vkDestroyQueryPool(stream_->context_->device(), pool_, nullptr);
  }
  VulkanTimestamp(const VulkanTimestamp&) = delete;
  VulkanTimestamp& operator=(const VulkanTimestamp&) = delete;

  double seconds_since(const backend::DeviceTimestamp& earlier) const override {
    const auto& start = static_cast<const VulkanTimestamp&>(earlier);
    stream_->wait_for(std::max(serial_, start.serial_));
    const double ticks = static_cast<double>(ticks_of(*this) - ticks_of(start));
    return ticks * stream_->context_->features().timestamp_period * 1e-9;
  }

 private:
  uint64_t ticks_of(const VulkanTimestamp& t) const {
    uint64_t ticks = 0;
    stream_->context_->check(
        vkGetQueryPoolResults(stream_->context_->device(), t.pool_, 0, 1, sizeof ticks, &ticks,
                              sizeof ticks, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
    return ticks;
  }

  std::shared_ptr<CommandStream> stream_;
  VkQueryPool pool_;
  uint64_t serial_;
};

CommandStream::CommandStream(std::shared_ptr<Context> context) : context_(std::move(context)) {
  VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  info.queueFamilyIndex = context_->physical().queue_family;
  context_->check(vkCreateCommandPool(context_->device(), &info, nullptr, &command_pool_),
                  "vkCreateCommandPool");
  // A staging page goes back only once no submitted batch can still read it.
  staging_pages_ = std::make_shared<DevicePages>(context_, true, [this] { sync(); });
  staging_ = std::make_shared<pools::MemoryManager>(staging_pages_, context_->name() + " staging");
  if (context_->features().timestamp_period > 0)
    profile_ =
        KernelProfile::from_environment(context_->name(), context_->features().timestamp_period);
}

CommandStream::~CommandStream() {
  try {
    sync();
  } catch (...) {
    // A poisoned device: its work is gone, and its objects go below all the same.
  }
  const VkDevice device = context_->device();
  vkDeviceWaitIdle(device);
  const auto destroy = [&](Batch& batch) {
    for (VkDescriptorPool pool : batch.descriptor_pools)
      vkDestroyDescriptorPool(device, pool, nullptr);
    vkDestroyFence(device, batch.fence, nullptr);
    vkDestroyQueryPool(device, batch.timestamps, nullptr);
    batch.kept.clear();
  };
  if (current_) destroy(*current_);
  for (Batch& batch : in_flight_)
    destroy(batch);
  for (Batch& batch : spare_)
    destroy(batch);
  vkDestroyCommandPool(device, command_pool_, nullptr);
}

CommandStream::Batch CommandStream::fresh_batch() {
  Batch batch;
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = command_pool_;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  context_->check(vkAllocateCommandBuffers(context_->device(), &info, &batch.commands),
                  "vkAllocateCommandBuffers");
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  context_->check(vkCreateFence(context_->device(), &fence, nullptr, &batch.fence),
                  "vkCreateFence");
  if (profile_) {
    VkQueryPoolCreateInfo queries{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    queries.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queries.queryCount = kMaxCommands + 1;
    context_->check(vkCreateQueryPool(context_->device(), &queries, nullptr, &batch.timestamps),
                    "vkCreateQueryPool");
  }
  return batch;
}

CommandStream::Batch& CommandStream::current() {
  context_->check_usable();
  if (current_) return *current_;
  Batch batch;
  if (!spare_.empty()) {
    batch = std::move(spare_.back());
    spare_.pop_back();
  } else {
    batch = fresh_batch();
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  context_->check(vkBeginCommandBuffer(batch.commands, &begin), "vkBeginCommandBuffer");
  if (profile_) {
    vkCmdResetQueryPool(batch.commands, batch.timestamps, 0, kMaxCommands + 1);
    vkCmdWriteTimestamp(batch.commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, batch.timestamps, 0);
  }
  batch.serial = next_serial_++;
  current_ = std::move(batch);
  return *current_;
}

void CommandStream::order(Batch& batch, std::span<const Access> accesses) {
  if (batch.hazards.must_wait(accesses)) barrier(batch);
  batch.hazards.add(accesses);
}

void CommandStream::barrier(Batch& batch, bool for_host) {
  // Only a copy into staging memory that the host reads makes its writes visible to the host:
  // that barrier asks the driver to flush the device's caches for the host, work a dispatch
  // whose result stays on the device does not need.
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  VkPipelineStageFlags next = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  if (for_host) {
    barrier.dstAccessMask |= VK_ACCESS_HOST_READ_BIT;
    next |= VK_PIPELINE_STAGE_HOST_BIT;
  }
  vkCmdPipelineBarrier(batch.commands,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, next,
                       0, 1, &barrier, 0, nullptr, 0, nullptr);
  batch.hazards.clear();
  ++barriers_;
}

void CommandStream::recorded(Batch& batch, std::string_view label) {
  ++batch.recorded;
  if (profile_) {
    vkCmdWriteTimestamp(batch.commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, batch.timestamps,
                        static_cast<uint32_t>(batch.recorded));
    batch.labels.emplace_back(label);
    profile_->add_host(batch.labels.back());
  }
  if (batch.recorded >= kMaxCommands) submit_locked();
}

VkDescriptorSet CommandStream::allocate_set(Batch& batch, VkDescriptorSetLayout layout) {
  // Pools of 64 sets of up to 16 buffers each, made as the batch needs them and reset with it.
  constexpr uint32_t kSets = 64;
  for (;;) {
    if (batch.pools_used == batch.descriptor_pools.size()) {
      const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSets * 16};
      VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      info.maxSets = kSets;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      VkDescriptorPool pool = VK_NULL_HANDLE;
      context_->check(vkCreateDescriptorPool(context_->device(), &info, nullptr, &pool),
                      "vkCreateDescriptorPool");
      batch.descriptor_pools.push_back(pool);
    }
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = batch.descriptor_pools[batch.pools_used];
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    const VkResult result = vkAllocateDescriptorSets(context_->device(), &info, &set);
    if (result == VK_SUCCESS) return set;
    if (result != VK_ERROR_OUT_OF_POOL_MEMORY && result != VK_ERROR_FRAGMENTED_POOL)
      context_->check(result, "vkAllocateDescriptorSets");
    ++batch.pools_used;
  }
}

std::shared_ptr<CommandStream::StagingBlock> CommandStream::staging_block(std::size_t bytes) {
  return std::make_shared<StagingBlock>(*staging_, *staging_pages_, bytes);
}

void CommandStream::dispatch(const Kernel& kernel, std::span<const std::byte> params,
                             std::span<const BufferRange> tensors, uint32_t groups_x,
                             uint32_t groups_y, uint32_t groups_z) {
  const std::lock_guard lock(mutex_);
  Batch& batch = current();
  auto block = staging_block(params.size());
  if (!params.empty()) std::memcpy(block->range().mapped, params.data(), params.size());
  const VkDescriptorSet set = allocate_set(batch, kernel.set_layout);
  std::vector<VkDescriptorBufferInfo> buffers;
  buffers.push_back({block->range().buffer, block->range().offset, block->range().bytes});
  for (const BufferRange& tensor : tensors)
    buffers.push_back({tensor.buffer, tensor.offset, tensor.bytes});
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = set;
  write.descriptorCount = static_cast<uint32_t>(buffers.size());
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  write.pBufferInfo = buffers.data();
  vkUpdateDescriptorSets(context_->device(), 1, &write, 0, nullptr);
  accesses_.clear();
  for (std::size_t t = 0; t < tensors.size(); ++t)
    accesses_.push_back({tensors[t], t >= kernel.writes.size() || kernel.writes[t]});
  order(batch, accesses_);
  vkCmdBindPipeline(batch.commands, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline);
  vkCmdBindDescriptorSets(batch.commands, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.layout, 0, 1, &set,
                          0, nullptr);
  vkCmdDispatch(batch.commands, groups_x, groups_y, groups_z);
  batch.kept.push_back(std::move(block));
  recorded(batch, kernel.label);
}

void CommandStream::fill_zero(const BufferRange& to) {
  if (to.bytes == 0) return;
  const std::lock_guard lock(mutex_);
  Batch& batch = current();
  const Access access{to, true};
  order(batch, std::span(&access, 1));
  vkCmdFillBuffer(batch.commands, to.buffer, to.offset, to.bytes, 0);
  recorded(batch, "(zero fill)");
}

void CommandStream::upload(std::span<const std::byte> bytes, const BufferRange& to) {
  if (bytes.empty()) return;
  const std::lock_guard lock(mutex_);
  auto block = staging_block(bytes.size());
  std::memcpy(block->range().mapped, bytes.data(), bytes.size());
  Batch& batch = current();
  const Access access{to, true};
  order(batch, std::span(&access, 1));
  const VkBufferCopy region{block->range().offset, to.offset, bytes.size()};
  vkCmdCopyBuffer(batch.commands, block->range().buffer, to.buffer, 1, &region);
  batch.kept.push_back(std::move(block));
  recorded(batch, "(upload)");
}

void CommandStream::download(const BufferRange& from, std::span<std::byte> bytes) {
  if (bytes.empty()) return;
  const std::lock_guard lock(mutex_);
  auto block = staging_block(bytes.size());
  Batch& batch = current();
  const Access access{from, false};
  order(batch, std::span(&access, 1));
  const VkBufferCopy region{from.offset, block->range().offset, bytes.size()};
  vkCmdCopyBuffer(batch.commands, from.buffer, block->range().buffer, 1, &region);
  barrier(batch, true);
  const uint64_t serial = batch.serial;
  recorded(batch, "(download)");
  if (current_ && current_->serial == serial) submit_locked();
  wait_for_locked(serial);
  std::memcpy(bytes.data(), block->range().mapped, bytes.size());
}

void CommandStream::submit_locked() {
  if (!current_) return;
  Batch batch = std::move(*current_);
  current_.reset();
  if (!batch.hazards.empty()) barrier(batch);
  context_->check_fatal(vkEndCommandBuffer(batch.commands), "vkEndCommandBuffer");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &batch.commands;
  const auto submitting = KernelProfile::Clock::now();
  const VkResult result = vkQueueSubmit(context_->queue(), 1, &submit, batch.fence);
  if (profile_) profile_->add_submit(KernelProfile::Clock::now() - submitting);
  if (result != VK_SUCCESS) {
    recycle(std::move(batch));
    context_->check_fatal(result, "vkQueueSubmit");
  }
  in_flight_.push_back(std::move(batch));
  reclaim_locked();
}

void CommandStream::reclaim_locked() {
  // Batches that are done give their staging blocks and descriptors back without a wait; past
  // kMaxInFlight the host waits for the oldest, so that a loop that never reads holds a bounded
  // amount of staging memory.
  while (!in_flight_.empty() &&
         (in_flight_.size() > kMaxInFlight ||
          vkGetFenceStatus(context_->device(), in_flight_.front().fence) == VK_SUCCESS))
    wait_for_locked(in_flight_.front().serial);
}

void CommandStream::recycle(Batch batch) {
  const VkDevice device = context_->device();
  vkResetFences(device, 1, &batch.fence);
  vkResetCommandBuffer(batch.commands, 0);
  for (VkDescriptorPool pool : batch.descriptor_pools)
    vkResetDescriptorPool(device, pool, 0);
  batch.pools_used = 0;
  batch.kept.clear();
  batch.labels.clear();
  batch.recorded = 0;
  batch.hazards.clear();
  spare_.push_back(std::move(batch));
}

void CommandStream::wait_for_locked(uint64_t serial) {
  while (!in_flight_.empty() && in_flight_.front().serial <= serial) {
    Batch batch = std::move(in_flight_.front());
    in_flight_.pop_front();
    const auto waiting = KernelProfile::Clock::now();
    const VkResult waited =
        vkWaitForFences(context_->device(), 1, &batch.fence, VK_TRUE, UINT64_MAX);
    if (profile_) profile_->add_wait(KernelProfile::Clock::now() - waiting);
    if (waited == VK_SUCCESS && profile_) profile_batch(batch);
    recycle(std::move(batch));
    context_->check_fatal(waited, "vkWaitForFences");
  }
}

void CommandStream::profile_batch(const Batch& batch) {
  std::vector<uint64_t> ticks(static_cast<std::size_t>(batch.recorded) + 1);
  const VkResult read = vkGetQueryPoolResults(
      context_->device(), batch.timestamps, 0, static_cast<uint32_t>(ticks.size()),
      ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
  if (read != VK_SUCCESS) return;  // a diagnostic: a batch missing from it is no error
  if (profiled_end_ != 0 && ticks.front() > profiled_end_)
    profile_->add_idle(ticks.front() - profiled_end_);
  for (std::size_t i = 1; i < ticks.size(); ++i)
    profile_->add_command(batch.labels[i - 1], ticks[i] - std::min(ticks[i], ticks[i - 1]));
  profiled_end_ = ticks.back();
}

void CommandStream::wait_for(uint64_t serial) {
  const std::lock_guard lock(mutex_);
  if (current_ && current_->serial <= serial) submit_locked();
  wait_for_locked(serial);
}

void CommandStream::flush() {
  const std::lock_guard lock(mutex_);
  context_->check_usable();
  submit_locked();
}

void CommandStream::sync() {
  const std::lock_guard lock(mutex_);
  context_->check_usable();
  submit_locked();
  wait_for_locked(next_serial_);
  if (profile_) profile_->write();
}

std::shared_ptr<backend::DeviceTimestamp> CommandStream::timestamp() {
  if (context_->features().timestamp_period <= 0) return nullptr;
  const std::lock_guard lock(mutex_);
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = 1;
  VkQueryPool pool = VK_NULL_HANDLE;
  context_->check(vkCreateQueryPool(context_->device(), &info, nullptr, &pool),
                  "vkCreateQueryPool");
  Batch* batch = nullptr;
  try {
    batch = &current();
  } catch (...) {
    vkDestroyQueryPool(context_->device(), pool, nullptr);
    throw;
  }
  auto stamp = std::make_shared<VulkanTimestamp>(shared_from_this(), pool, batch->serial);
  vkCmdResetQueryPool(batch->commands, pool, 0, 1);
  vkCmdWriteTimestamp(batch->commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 0);
  submit_locked();
  return stamp;
}

}  // namespace ember::vulkan
