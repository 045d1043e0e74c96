// LaunchQueue: the work a cuda device puts on its stream (kernel launches, cuBLASLt products,
// device-to-device copies and fills), held back and issued in order at the next drain, and
// replayed as a CUDA graph when a chunk of it repeats.
//
// A drain comes with every flush and sync, before any transfer or event on the stream, before a
// page of memory goes back to the driver, and when kChunk entries are queued. A training step
// issues the same chunks, in the same order, every step (a sync or a transfer at the end starts
// the next step on a chunk boundary). A chunk's form is its entries' kinds, kernels and geometries.
//   * The first time a form is seen, the entries are issued one by one, as without the queue.
//   * The second time, they are captured on the stream as a CUDA graph, instantiated, launched.
//   * After that, the graph is launched again. A kernel argument that changed (another buffer, a
//     new scalar) is patched into its node first. Another address in a cuBLASLt product, copy or
//     fill, which cannot be patched, means a new capture. A form that needs one three times in a
//     row goes back to one-by-one launches.
// A replay runs the same kernels on the same arguments as the entries it stands for, so its
// results are those of the un-replayed chunk, bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "backends/cuda/gpu_context.h"

namespace ember::cuda {

/// A launch's arguments by value: cuLaunchKernel takes an array of pointers to each one.
class LaunchArguments {
 public:
  template <typename T>
  void add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= 8);
    const std::size_t at = (storage_.size() + alignof(T) - 1) / alignof(T) * alignof(T);
    storage_.resize(at + sizeof(T));  // zeroes the padding: arguments compare by their bytes
    offsets_.push_back(at);
    std::memcpy(storage_.data() + at, &value, sizeof(T));
  }
  /// The pointers cuLaunchKernel reads; valid until the next add.
  void** pointers();
  /// The value of the i-th argument added, as a T.
  template <typename T>
  T at(std::size_t i) const {
    T value;
    std::memcpy(&value, storage_.data() + offsets_[i], sizeof(T));
    return value;
  }
  std::size_t size() const { return storage_.size(); }
  friend bool operator==(const LaunchArguments& a, const LaunchArguments& b) {
    return a.storage_ == b.storage_;
  }

 private:
  std::vector<unsigned char> storage_;
  std::vector<std::size_t> offsets_;
  std::vector<void*> pointers_;
};

/// What the graphs did: a test or a benchmark reads these to see replay happen.
struct LaunchQueueStats {
  uint64_t direct_chunks = 0;  // issued one entry at a time
  uint64_t captures = 0;       // captured as a graph (first time or again)
  uint64_t replays = 0;        // a graph launched again, its nodes patched where needed
  uint64_t patched_nodes = 0;  // kernel nodes whose arguments changed before a replay
};

class LaunchQueue {
 public:
  /// Entries at most before a drain: the GPU starts on a step's first chunk while the host
  /// prepares the next.
  static constexpr std::size_t kChunk = 128;

  explicit LaunchQueue(std::shared_ptr<const GpuContext> gpu);
  ~LaunchQueue();
  LaunchQueue(const LaunchQueue&) = delete;
  LaunchQueue& operator=(const LaunchQueue&) = delete;

  /// Graphs on (the device setting graph_replay) or off: off, every chunk is issued directly.
  void set_graph_replay(bool on);

  /// Queues a kernel launch of grid blocks of block threads.
  void launch(CUfunction function, unsigned grid, unsigned block, LaunchArguments arguments);
  /// Queues bytes of value at to.
  void fill(CUdeviceptr to, unsigned char value, std::size_t bytes);
  /// Queues a copy of bytes from one device address to another.
  void copy(CUdeviceptr to, CUdeviceptr from, std::size_t bytes);
  /// Queues work a library issues on the stream (a cuBLASLt product): issue(stream) issues it.
  /// issue must not own device memory: entries are dropped while the queue is locked.
  /// form: what a graph of it depends on besides addresses (the problem's shape); operands: the
  /// addresses it reads and writes. A capture holds issue's stream work for the same form and
  /// operands.
  void call(uint64_t form, LaunchArguments operands, std::function<void(CUstream)> issue);

  /// Issues what is queued. The first failure is thrown after the rest is issued.
  void drain();
  /// Issues what is queued and forgets every graph; later drains do nothing (the backend that
  /// owns the kernels is going away).
  void close() noexcept;

  LaunchQueueStats stats() const;

 private:
  enum class Kind : unsigned char { Kernel, Fill, Copy, Call };
  struct Entry {
    Kind kind;
    CUfunction function = nullptr;  // Kernel
    unsigned grid = 0;
    unsigned block = 0;
    uint64_t form = 0;                    // Call; Fill's value
    LaunchArguments arguments;            // Kernel's arguments; the others' addresses and sizes
    std::function<void(CUstream)> issue;  // Call
  };
  struct Graph;

  void push(Entry entry);
  void drain_locked();
  void issue(Entry& entry);
  void issue_each(std::vector<Entry>& entries);
  /// Captures entries as g's graph and instantiates it; false when the capture failed (the
  /// entries are then issued one by one).
  bool capture(Graph& g, std::vector<Entry>& entries);
  /// Patches g's kernel nodes whose arguments differ in entries; false when an entry that is not
  /// a kernel differs.
  bool patch(Graph& g, std::vector<Entry>& entries);
  void launch_graph(const Graph& g);
  void forget(Graph& g) noexcept;
  static uint64_t form_of(const std::vector<Entry>& entries);
  static bool same_form(const Entry& a, const Entry& b);

  std::shared_ptr<const GpuContext> gpu_;
  mutable std::mutex mutex_;  // guards everything below
  std::vector<Entry> entries_;
  std::unordered_map<uint64_t, Graph> graphs_;
  std::list<uint64_t> recent_;  // graphs_'s keys, most recently used first
  bool graph_replay_ = true;
  bool closed_ = false;
  LaunchQueueStats stats_;
};

}  // namespace ember::cuda
