// FusionBackend: the fusion decorator (DESIGN.md §1). It wraps any backend: fusible elementwise
// ops (fusible.h) are queued on the calling thread's stream and answered at once with a lazy
// buffer; every other op first has the lazy buffers it reads computed, then runs on the inner
// backend, which therefore never sees a lazy buffer. A stream executes on a read of one of its
// buffers, on a non-fusible op reading one, on flush(), on sync(), and when it holds
// max_queued ops; it then runs as few fused passes as the shapes allow, storing only the
// results still held (grouping.h, executor.h). Wrapping a backend is one line:
//   std::make_unique<fusion::FusionBackend>(make_inner())
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "fusion/executor.h"
#include "fusion/fusible.h"
#include "fusion/program_cache.h"

namespace ember::fusion {

class Stream;

struct FusionOptions {
  /// Note: 128 queued ops is longer than the elementwise chains met between two non-fusible ops
  /// (a layer norm with its backward, Adam's update of a few parameters), so the bound rarely
  /// cuts a chain, while it bounds the external buffers a queue keeps alive and the time spent
  /// grouping and hashing one queue.
  static constexpr std::size_t kDefaultMaxQueued = 128;

  /// false: every op goes straight to the inner backend (for comparison).
  bool enabled = true;
  /// Ops a stream holds before it executes on its own.
  std::size_t max_queued = kDefaultMaxQueued;

  /// The defaults, with fusion off when the environment variable EMBER_FUSION is "0".
  static FusionOptions from_environment();
};

class FusionBackend final : public backend::Backend {
 public:
  /// Options from the environment (read once, here).
  explicit FusionBackend(std::unique_ptr<backend::Backend> inner);
  FusionBackend(std::unique_ptr<backend::Backend> inner, FusionOptions options);
  /// Ops still queued then fail (reading their buffers throws ExecutionError).
  ~FusionBackend() override;
  FusionBackend(const FusionBackend&) = delete;
  FusionBackend& operator=(const FusionBackend&) = delete;

  std::string name() const override { return inner_->name(); }
  std::string description() const override { return inner_->description(); }
  bool supports_dtype(DType dtype) const override { return inner_->supports_dtype(dtype); }
  DeviceSettings default_settings() const override { return inner_->default_settings(); }
  void apply_settings(const DeviceSettings& settings) override { inner_->apply_settings(settings); }

  backend::Outputs execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                           std::span<const ir::TensorMeta> outputs) override;
  bool runs_fused_attention(const ir::Attention& op,
                            std::span<const ir::TensorMeta> inputs) const override {
    return inner_->runs_fused_attention(op, inputs);
  }
  bool runs_fused_rows(const ir::Op& op, std::span<const ir::TensorMeta> inputs) const override {
    return inner_->runs_fused_rows(op, inputs);
  }
  backend::BufferPtr write(const TensorData& data) override { return inner_->write(data); }
  backend::BufferPtr write_from(const ir::TensorMeta& meta,
                                const std::function<void(std::span<std::byte>)>& fill) override {
    return inner_->write_from(meta, fill);
  }
  /// Computes a lazy buffer first.
  TensorData read(const backend::Operand& operand) override;
  /// Computes a lazy buffer first: memory is shared only once it holds the value.
  std::optional<backend::HostMemory> share_host_memory(const backend::Operand& operand) override;
  backend::BufferPtr wrap_host_memory(const backend::HostMemory& memory,
                                      const ir::TensorMeta& meta) override {
    return inner_->wrap_host_memory(memory, meta);
  }

  /// Executes the calling thread's queue, then waits for the inner backend. Other threads'
  /// queues are theirs to execute (each thread is its own stream).
  void sync() override;
  /// Executes the calling thread's queue and flushes the inner backend.
  void flush() override;
  /// The inner backend's timestamp: queued ops are not run first (Device::profile flushes them
  /// where a window asks for it).
  std::shared_ptr<backend::DeviceTimestamp> record_timestamp() override {
    return inner_->record_timestamp();
  }

  std::optional<std::vector<SlicedPoolReport>> memory_pool_report() const override {
    return inner_->memory_pool_report();
  }
  std::optional<MemoryPoolUsage> memory_pool_usage() const override {
    return inner_->memory_pool_usage();
  }
  void memory_cleanup() override { inner_->memory_cleanup(); }
  /// Executes the calling thread's queue first, so that ops queued before the switch allocate
  /// as they would have eagerly.
  void begin_persistent_allocations() override;
  void end_persistent_allocations() noexcept override;
  void staging(std::span<TensorData*> data) override { inner_->staging(data); }

  /// Program cache counters: a miss is a program built (tests, diagnostics).
  ProgramCache::Stats cache_stats() const { return executor_.cache_stats(); }
  const FusionOptions& options() const { return options_; }

 private:
  Stream& this_thread_stream();
  /// The calling thread's queue executed, when it has one.
  void execute_this_thread();

  std::unique_ptr<backend::Backend> inner_;
  FusionOptions options_;
  /// inner_'s FusionSupport, asked once: execute consults it on every op.
  FusibleOps fusible_;
  Executor executor_;
  /// Tells this backend's streams apart in each thread's table of streams; never reused.
  uint64_t id_;
  std::mutex streams_mutex_;                    // guards streams_
  std::vector<std::weak_ptr<Stream>> streams_;  // every thread's, to detach them on destruction
};

}  // namespace ember::fusion
