// How a DataLoader epoch produces its batches (the implementation behind dataloader.h). An
// EpochPlan says which items go in which batch; a BatchSource hands the batches out in order,
// built either on the consumer's thread (InlineBatchSource) or ahead of it by worker threads
// (ThreadedBatchSource).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "ember/data/checks.h"
#include "ember/data/dataset.h"
#include "ember/device.h"

namespace ember::data::detail {

/// ceil(n / d) for d > 0, without the overflow of (n + d - 1) / d.
inline std::size_t ceil_div(std::size_t n, std::size_t d) {
  return n / d + (n % d != 0);
}

/// Where part `shard` of `shards` of count items starts: the parts are contiguous, in order, their
/// sizes differing by at most one.
inline std::size_t part_start(std::size_t count, std::size_t shard, std::size_t shards) {
  return count / shards * shard + std::min(shard, count % shards);
}
/// The items of part shard of count items.
inline std::size_t part_size(std::size_t count, std::size_t shard, std::size_t shards) {
  return part_start(count, shard + 1, shards) - part_start(count, shard, shards);
}

/// Batches handed out one at a time, in order, to one consumer thread.
template <typename Batch>
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  /// The next batch, or nullopt after the last one. An exception thrown while building a batch
  /// is rethrown here, in batch order; the source is then finished.
  virtual std::optional<Batch> next() = 0;
  virtual std::size_t num_batches() const = 0;
};

/// One epoch's work: batch b is batcher(items order[b * batch_size, ...]) on device. Immutable,
/// so worker threads share it without locking.
template <typename Item, typename Batch>
struct EpochPlan {
  DatasetPtr<Item> dataset;
  std::function<Batch(std::vector<Item>, const Device&)> batcher;
  Device device;
  std::vector<std::size_t> order;  ///< The dataset indices of the epoch, in batch order.
  std::size_t batch_size = 1;
  std::size_t shard = 0;  ///< The part of each batch built, of shards (DataLoaderOptions).
  std::size_t shards = 1;

  std::size_t num_batches() const { return ceil_div(order.size(), batch_size); }

  Batch build(std::size_t batch) const {
    const std::size_t start = batch * batch_size;
    const std::size_t count = std::min(batch_size, order.size() - start);
    const std::size_t first = start + part_start(count, shard, shards);
    const std::size_t last = first + part_size(count, shard, shards);
    std::vector<Item> items;
    items.reserve(last - first);
    for (std::size_t i = first; i < last; ++i) {
      std::optional<Item> item = dataset->get(order[i]);
      if (!item) fail_missing_item(order[i], dataset->len(), "DataLoader");
      items.push_back(std::move(*item));
    }
    return batcher(std::move(items), device);
  }
};

/// Builds each batch on the consumer's thread when it is asked for (num_workers = 0).
template <typename Item, typename Batch>
class InlineBatchSource final : public BatchSource<Batch> {
 public:
  explicit InlineBatchSource(EpochPlan<Item, Batch> plan) : plan_(std::move(plan)) {}

  std::optional<Batch> next() override {
    if (next_ == plan_.num_batches()) return std::nullopt;
    // Counted before building, so that a batch that throws is not retried.
    return plan_.build(next_++);
  }
  std::size_t num_batches() const override { return plan_.num_batches(); }

 private:
  EpochPlan<Item, Batch> plan_;
  std::size_t next_ = 0;
};

/// Worker threads build batches ahead of the consumer, at most `prefetch` batches beyond the
/// last one handed out, into a ring of prefetch slots (batch b goes to slot b % prefetch, free
/// because batch b - prefetch was handed out before b could be claimed); neither the ring nor
/// the workers outnumber the batches. The consumer takes the slots in batch order, so worker
/// timing never changes the order. Everyone sleeps on a condition variable while waiting.
/// Destruction (end of the epoch, or an early break) stops the workers and joins them; a worker
/// in the middle of a batch finishes that batch first.
template <typename Item, typename Batch>
class ThreadedBatchSource final : public BatchSource<Batch> {
 public:
  ThreadedBatchSource(EpochPlan<Item, Batch> plan, std::size_t num_workers, std::size_t prefetch)
      : plan_(std::move(plan)),
        num_batches_(plan_.num_batches()),
        slots_(std::max<std::size_t>(1, std::min(prefetch, num_batches_))) {
    const std::size_t threads = std::min(num_workers, num_batches_);
    try {
      for (std::size_t w = 0; w < threads; ++w)
        workers_.emplace_back([this] { work(); });
    } catch (...) {
      stop_and_join();
      throw;
    }
  }
  ThreadedBatchSource(const ThreadedBatchSource&) = delete;
  ThreadedBatchSource& operator=(const ThreadedBatchSource&) = delete;
  ~ThreadedBatchSource() override { stop_and_join(); }

  std::optional<Batch> next() override {
    std::unique_lock lock(mutex_);
    if (stopping_ || next_to_take_ == num_batches_) return std::nullopt;
    Slot& slot = slots_[next_to_take_ % slots_.size()];
    slot_filled_.wait(lock, [&] { return slot.filled; });
    Slot taken = std::move(slot);
    slot = Slot{};
    ++next_to_take_;
    if (taken.error) stopping_ = true;  // a failed epoch ends: stop building further batches
    lock.unlock();
    slot_freed_.notify_all();
    if (taken.error) std::rethrow_exception(taken.error);
    return std::move(taken.batch);
  }
  std::size_t num_batches() const override { return num_batches_; }

 private:
  /// A built batch, or the exception that building it threw.
  struct Slot {
    std::optional<Batch> batch;
    std::exception_ptr error;
    bool filled = false;
  };

  void work() {
    while (const std::optional<std::size_t> batch = claim()) {
      Slot result;
      try {
        result.batch.emplace(plan_.build(*batch));
      } catch (...) {
        result.error = std::current_exception();
      }
      result.filled = true;
      {
        std::lock_guard lock(mutex_);
        slots_[*batch % slots_.size()] = std::move(result);
      }
      slot_filled_.notify_one();  // only the consumer waits for a filled slot
    }
  }

  /// The next batch to build once the prefetch bound allows it; nullopt when there is none left
  /// or the source is stopping.
  std::optional<std::size_t> claim() {
    std::unique_lock lock(mutex_);
    slot_freed_.wait(lock, [&] {
      return stopping_ || next_to_claim_ == num_batches_ ||
             next_to_claim_ < next_to_take_ + slots_.size();
    });
    if (stopping_ || next_to_claim_ == num_batches_) return std::nullopt;
    return next_to_claim_++;
  }

  void stop_and_join() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    slot_freed_.notify_all();
    for (std::thread& worker : workers_)
      worker.join();
  }

  const EpochPlan<Item, Batch> plan_;
  const std::size_t num_batches_;
  std::mutex mutex_;
  std::condition_variable slot_filled_;  ///< Signalled when a worker fills a slot.
  std::condition_variable slot_freed_;   ///< Signalled when the consumer frees one, or on stop.
  std::vector<Slot> slots_;
  std::size_t next_to_claim_ = 0;  ///< The next batch a worker will build.
  std::size_t next_to_take_ = 0;   ///< The next batch the consumer will take.
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ember::data::detail
