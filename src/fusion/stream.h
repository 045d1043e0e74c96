// Stream: one thread's queue of fusible ops on one FusionBackend (DESIGN.md §1: each thread has
// its own queue of pending work on a device). The owning thread appends to it; any thread may
// execute it — to read a lazy buffer it produced — under its mutex. Executing computes every op
// whose result is still held outside the queue (and what those need), through the Executor,
// and leaves the queue empty whether it succeeds or not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/backend.h"
#include "core/lean_mutex.h"
#include "fusion/executor.h"
#include "fusion/lazy_buffer.h"
#include "fusion/pending_work.h"

namespace ember::fusion {

class Stream : public std::enable_shared_from_this<Stream> {
 public:
  Stream(Executor& executor, std::size_t max_queued)
      : executor_(&executor), max_queued_(max_queued) {}

  /// Queues op over inputs — inner buffers, or lazy buffers of this stream — and returns its
  /// lazy result. Once max_queued ops wait, the queue executes (its errors surface here).
  backend::BufferPtr enqueue(const ir::Op& op, std::span<const backend::Operand> inputs,
                             const ir::TensorMeta& output);
  /// Executes every queued op. ExecutionError when one fails: every result still waiting then
  /// fails the same way when read.
  void execute();
  /// The inner buffer of lazy, one of this stream's, executing the queue first if needed.
  backend::BufferPtr resolve(LazyBuffer& lazy);
  /// Fails every queued op and stops: the backend is being destroyed.
  void detach();

 private:
  /// Note: a queue mostly reads a few distinct external buffers, which a linear search finds
  /// faster than a hash (whose nodes cost an allocation each); past this many the hash index
  /// keeps long queues of fresh buffers from growing quadratic.
  static constexpr std::size_t kLinearSearchLimit = 32;

  ValueRef argument_locked(const backend::Operand& operand);
  /// A copy of meta for the pending work, its shape in a recycled shape's memory
  /// (core/recycled_shapes.h: cleared work gives its shapes back).
  ir::TensorMeta copy_locked(const ir::TensorMeta& meta);
  /// The position of buffer in work_.externals, added (with meta) on first use.
  uint32_t external_locked(const backend::BufferPtr& buffer, const ir::TensorMeta& meta);
  void execute_locked();
  /// Empties the queue, keeping its memory for the next ops.
  void clear_locked();
  /// After a failed execution: the results the executor computed before the failure become
  /// those ops' values, so a failure takes only the ops that did not run.
  void keep_computed_locked();
  /// Marks the result of every queued op of work that is still held and not computed as failed
  /// with message.
  static void fail_results(const PendingWork& work, const std::string& message);

  // Guards everything below and the state of this stream's lazy buffers. Lean (taken twice per
  // op: to queue it and to execute it).
  detail::LeanMutex mutex_;
  Executor* executor_;
  std::size_t max_queued_;
  PendingWork work_;
  /// Positions of each external buffer in work_.externals (one per meta it comes with), kept only
  /// past kLinearSearchLimit.
  std::unordered_multimap<const backend::Buffer*, uint32_t> external_index_;
  /// While executing: the live results (held, so they stay live until computed), which ops they
  /// belong to, and the executor's working memory. Members only to keep their memory from one
  /// execution to the next.
  std::vector<std::shared_ptr<LazyBuffer>> results_;
  std::vector<bool> live_;
  Executor::Scratch scratch_;
};

}  // namespace ember::fusion
