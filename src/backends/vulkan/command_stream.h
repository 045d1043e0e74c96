// CommandStream: the device's one queue, fed in batches. Every copy and kernel dispatch is
// recorded into the current command buffer, after a barrier where it touches a slice that a
// command since the last barrier touched and one of the two writes (hazards.h: a freed slice is
// reused by later work, and most commands read what the one before wrote), and a batch ends with
// one, so that the next batch's commands come after all of its own; flush submits the batch (also
// every kMaxCommands commands, so the device starts while the host records more), sync waits for
// every submitted batch. A batch keeps what the host wrote for it (staging blocks: uploads, kernel
// parameters) until its fence signals. A failed submission or wait, a lost device among them,
// poisons the context (vulkan_context.h).
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "backends/pools/memory_manager.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/hazards.h"
#include "backends/vulkan/kernel_profile.h"
#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

/// A compiled compute kernel: binding 0 its parameter block, bindings 1.. its tensors (storage
/// buffers), one descriptor set (kernel_cache.h makes them).
struct Kernel {
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t tensors = 0;      ///< storage buffers after the parameter block
  std::vector<bool> writes;  ///< per tensor, whether the kernel may write it (written_tensors)
  std::string label;         ///< KernelProfile::label_of its source
};

class CommandStream : public std::enable_shared_from_this<CommandStream> {
 public:
  explicit CommandStream(std::shared_ptr<Context> context);
  ~CommandStream();
  CommandStream(const CommandStream&) = delete;
  CommandStream& operator=(const CommandStream&) = delete;

  /// Records kernel over groups workgroups (x, y, z), its parameter block params (copied), its
  /// tensors bound in order.
  void dispatch(const Kernel& kernel, std::span<const std::byte> params,
                std::span<const BufferRange> tensors, uint32_t groups_x, uint32_t groups_y = 1,
                uint32_t groups_z = 1);
  /// Records zeros over to (its size a multiple of 4 bytes, or up to the end of its buffer).
  void fill_zero(const BufferRange& to);
  /// Records a copy of bytes into to, through a staging block.
  void upload(std::span<const std::byte> bytes, const BufferRange& to);
  /// Copies from into bytes (from.bytes of them): submits and waits.
  void download(const BufferRange& from, std::span<std::byte> bytes);

  /// Submits the current batch, if it holds any command.
  void flush();
  /// flush, then waits for every submitted batch. Throws ExecutionError (and poisons the device)
  /// when a submission failed.
  void sync();
  /// A timestamp after the work recorded so far (submitted at once); nullptr when the queue has
  /// no timestamps.
  std::shared_ptr<backend::DeviceTimestamp> timestamp();

  /// The barriers recorded so far (tests count them: hazards.h's elision).
  int barriers() const { return barriers_; }

  /// The staging pools: what they hold is not the device's memory report.
  pools::MemoryManager& staging() { return *staging_; }

 private:
  static constexpr int kMaxCommands = 64;
  static constexpr std::size_t kMaxInFlight = 8;
  struct Batch {
    VkCommandBuffer commands = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    std::vector<VkDescriptorPool> descriptor_pools;
    std::size_t pools_used = 0;
    std::vector<std::shared_ptr<const void>> kept;  ///< until the fence signals
    uint64_t serial = 0;
    int recorded = 0;
    HazardTracker hazards;  ///< the slices touched since the last barrier
    // Where the profile is on: a timestamp at the start and after each command, and the
    // commands' labels.
    VkQueryPool timestamps = VK_NULL_HANDLE;
    std::vector<std::string> labels;
  };
  class StagingBlock;
  friend class VulkanTimestamp;

  /// The batch being recorded (begun on first use). Called with mutex_ held.
  Batch& current();
  /// Records a barrier before a command making accesses where it has to wait for an earlier
  /// one of the batch (hazards.h), and counts them among the batch's.
  void order(Batch& batch, std::span<const Access> accesses);
  /// A barrier ordering every command recorded before it before every one after it (and the
  /// host's reads too where for_host: a download into staging memory).
  void barrier(Batch& batch, bool for_host = false);
  /// Counts a command of label, and flushes a full batch.
  void recorded(Batch& batch, std::string_view label);
  /// Where the profile is on: the batch's commands' device time, given to profile_.
  void profile_batch(const Batch& batch);
  VkDescriptorSet allocate_set(Batch& batch, VkDescriptorSetLayout layout);
  std::shared_ptr<StagingBlock> staging_block(std::size_t bytes);
  void submit_locked();
  /// Recycles the batches that are done, and waits for the oldest past kMaxInFlight.
  void reclaim_locked();
  /// Waits until the batch of serial has completed (every batch when serial is the last).
  void wait_for_locked(uint64_t serial);
  void wait_for(uint64_t serial);
  void recycle(Batch batch);
  Batch fresh_batch();

  std::shared_ptr<Context> context_;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  std::recursive_mutex mutex_;
  std::optional<Batch> current_;
  std::deque<Batch> in_flight_;
  std::vector<Batch> spare_;
  uint64_t next_serial_ = 1;
  int barriers_ = 0;
  std::vector<Access> accesses_;            ///< dispatch's, kept so that a dispatch allocates none
  std::unique_ptr<KernelProfile> profile_;  ///< nullptr unless EMBER_VULKAN_PROFILE is set
  uint64_t profiled_end_ = 0;               ///< the last profiled batch's final timestamp
  // Last, so destroyed first: a staging page given back then syncs the stream, still whole.
  std::shared_ptr<DevicePages> staging_pages_;
  std::shared_ptr<pools::MemoryManager> staging_;
};

}  // namespace ember::vulkan
