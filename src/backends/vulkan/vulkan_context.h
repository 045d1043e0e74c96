// The Vulkan device ember runs on: the process's instance, the physical devices it offers (each
// with the DeviceKind that names it), and one logical device with its compute queue. Errors of
// the API become ExecutionError naming the call; a lost device (VK_ERROR_DEVICE_LOST, or any
// failed submission or wait) poisons the context: every later call says so, and the process goes
// on (docs/backends/vulkan.md).
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ember/dispatch_device.h"

namespace ember::vulkan {

/// How the f16 matmul on cooperative matrices (matmul_sources.h) divides a workgroup's work: a
/// grid of subgroup_rows x subgroup_cols subgroups, each holding tile_rows x tile_cols
/// accumulators of the output tile; k staged k_steps matrices deep at a time through
/// shared_buffers shared buffers (2: the next step stored while this one multiplies, one barrier
/// a step; 1: half the shared memory, two barriers a step). The output tile is square
/// (subgroup_rows * tile_rows == subgroup_cols * tile_cols), as the product's geometry takes it.
/// The default, 8 subgroups of 4 x 2 accumulators for a 128 x 128 tile, ran the 4096 f16 product
/// fastest of the sweep on an H100 (159 TFLOP/s; 4 subgroups of 4 x 4: 118;
/// bench/results/gpu_backends.md).
struct CooperativeLayout {
  uint32_t subgroup_rows = 2;
  uint32_t subgroup_cols = 4;
  uint32_t tile_rows = 4;
  uint32_t tile_cols = 2;
  uint32_t k_steps = 2;
  uint32_t shared_buffers = 2;
};

/// One shape of cooperative matrix the driver multiplies (VK_NV_cooperative_matrix): (m x k) f16
/// times (k x n) f16 accumulated into (m x n) f32, in a subgroup of subgroup_size invocations;
/// and the layout of the kernel ember runs on it.
struct CooperativeShape {
  uint32_t m = 0;
  uint32_t n = 0;
  uint32_t k = 0;
  uint32_t subgroup_size = 0;
  CooperativeLayout layout{};
};

/// What a physical device offers that decides what ember runs on it (and which dtypes it
/// supports: vulkan_backend.cpp).
struct Features {
  bool float64 = false;    ///< shaderFloat64
  bool int64 = false;      ///< shaderInt64
  bool float16 = false;    ///< shaderFloat16
  bool storage8 = false;   ///< storageBuffer8BitAccess and shaderInt8 (Bool, i8, u8 elements)
  bool storage16 = false;  ///< storageBuffer16BitAccess and shaderInt16 (f16, i16, u16 elements)
  /// The largest range one storage-buffer descriptor may cover: larger tensors run on the host.
  uint32_t max_storage_range = 0;
  uint32_t max_groups_x = 0;         ///< maxComputeWorkGroupCount[0]
  uint32_t max_shared_bytes = 0;     ///< maxComputeSharedMemorySize
  uint32_t max_storage_buffers = 0;  ///< maxPerStageDescriptorStorageBuffers
  /// The f16 cooperative matrices the f16 matmul uses, where the driver offers them (the
  /// extension, its feature, a shape of f16 operands and f32 accumulators in a subgroup, the
  /// Vulkan memory model, and the shared memory the kernel needs); empty otherwise.
  std::optional<CooperativeShape> cooperative_f16;
  /// Nanoseconds a timestamp tick lasts; 0 when the compute queue writes no timestamps.
  double timestamp_period = 0;
};

/// One physical device ember can use: one with a compute queue, 1.1 or newer.
struct PhysicalDevice {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  /// The kind that names it: its type and its index among the devices of that type.
  DeviceKind kind = DeviceKind::default_device();
  std::string name;  ///< the driver's ("llvmpipe (LLVM 15.0.6, 256 bits)")
  uint32_t api_version = 0;
  uint32_t queue_family = 0;  ///< the first family with compute
  Features features;
};

/// The physical devices the loader's drivers report, in the loader's order; empty (never an
/// exception) when there is no loader, no driver, or the instance cannot be made.
const std::vector<PhysicalDevice>& physical_devices();

/// The device kind selects, or nullptr: DeviceKind::default_device() the first discrete GPU, else
/// the first integrated, virtual, then CPU device; the others their type's device of that index
/// (cpu(): the first CPU device).
const PhysicalDevice* select(const DeviceKind& kind);

/// A logical device on one physical device, with its compute queue. Thread-safe: the queue is
/// used under queue_mutex() by its one user (the command stream).
class Context {
 public:
  /// Throws ExecutionError when the device cannot be made.
  Context(const PhysicalDevice& physical, std::string name);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  const PhysicalDevice& physical() const { return physical_; }
  const Features& features() const { return physical_.features; }
  const std::string& name() const { return name_; }

  /// A memory type of type_bits with every flag of wanted; ExecutionError when there is none.
  uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags wanted) const;

  /// Throws ExecutionError "[name] what failed: ..." unless result is VK_SUCCESS.
  void check(VkResult result, const std::string& what) const;
  /// As check, and a failure poisons the context: for submissions and waits, after which the
  /// queue's state is unknown.
  void check_fatal(VkResult result, const std::string& what);
  /// Throws ExecutionError when the context is poisoned.
  void check_usable() const;
  bool poisoned() const { return poisoned_.load(std::memory_order_acquire); }

 private:
  PhysicalDevice physical_;
  std::string name_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::atomic<bool> poisoned_{false};
  mutable std::mutex reason_mutex_;
  std::string reason_;  ///< why it is poisoned
};

/// The name of a VkResult ("VK_ERROR_DEVICE_LOST").
std::string result_name(VkResult result);

}  // namespace ember::vulkan
