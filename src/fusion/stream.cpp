#include "fusion/stream.h"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "core/recycled.h"
#include "core/recycled_shapes.h"
#include "ember/error.h"

namespace ember::fusion {

backend::BufferPtr Stream::enqueue(const ir::Op& op, std::span<const backend::Operand> inputs,
                                   const ir::TensorMeta& output) {
  const std::lock_guard lock(mutex_);
  ArgList<ValueRef> args;
  for (const backend::Operand& input : inputs)
    args.push_back(argument_locked(input));
  const auto index = static_cast<uint32_t>(work_.ops.size());
  // In a recycled block (core/recycled.h): one per op.
  auto result = detail::make_recycled<LazyBuffer>(shared_from_this(), index);
  work_.ops.emplace_back(op, args, copy_locked(output), result);  // built in place: no moves
  if (work_.ops.size() >= max_queued_) execute_locked();
  return result;
}

void Stream::execute() {
  const std::lock_guard lock(mutex_);
  execute_locked();
}

backend::BufferPtr Stream::resolve(LazyBuffer& lazy) {
  const std::lock_guard lock(mutex_);
  if (lazy.state_ == LazyBuffer::State::Queued) execute_locked();
  if (lazy.state_ == LazyBuffer::State::Failed) throw ExecutionError(lazy.error_);
  return lazy.inner_;
}

void Stream::detach() {
  const std::lock_guard lock(mutex_);
  const PendingWork work = std::exchange(work_, {});
  external_index_.clear();
  executor_ = nullptr;
  fail_results(work, "[fusion] the device was destroyed before this queued op ran");
}

ValueRef Stream::argument_locked(const backend::Operand& operand) {
  if (LazyBuffer* lazy = as_lazy(operand.buffer.get())) {
    // The backend hands over only this stream's lazy buffers: their state is ours to read.
    switch (lazy->state_) {
      case LazyBuffer::State::Queued:
        return {ValueRef::Kind::Queued, lazy->index_};
      case LazyBuffer::State::Failed:
        throw ExecutionError(lazy->error_);
      case LazyBuffer::State::Computed:
        return {ValueRef::Kind::External, external_locked(lazy->inner_, operand.meta)};
    }
  }
  return {ValueRef::Kind::External, external_locked(operand.buffer, operand.meta)};
}

uint32_t Stream::external_locked(const backend::BufferPtr& buffer, const ir::TensorMeta& meta) {
  std::vector<backend::Operand>& externals = work_.externals;
  // One buffer may come with several metas: a backend's reshape shares its input's buffer
  // (cuda's does), so [C] and its [1, C, 1, 1] are two inputs of a program.
  const auto same = [&](uint32_t i) {
    return externals[i].buffer == buffer && externals[i].meta == meta;
  };
  if (external_index_.empty()) {
    for (uint32_t i = 0; i < externals.size(); ++i)
      if (same(i)) return i;
  } else {
    const auto [first, last] = external_index_.equal_range(buffer.get());
    for (auto found = first; found != last; ++found)
      if (same(found->second)) return found->second;
  }
  const auto index = static_cast<uint32_t>(externals.size());
  externals.emplace_back(buffer, copy_locked(meta));
  if (externals.size() > kLinearSearchLimit) {
    if (external_index_.empty()) {
      for (uint32_t i = 0; i < index; ++i)
        external_index_.emplace(externals[i].buffer.get(), i);
    }
    external_index_.emplace(buffer.get(), index);
  }
  return index;
}

ir::TensorMeta Stream::copy_locked(const ir::TensorMeta& meta) {
  return {detail::recycled_copy(meta.shape), meta.dtype};
}

void Stream::execute_locked() {
  if (work_.ops.empty()) return;
  // The queue is emptied however the execution ends, so a failure is never run again.
  struct Clear {
    Stream& stream;
    ~Clear() { stream.clear_locked(); }
  } clear{*this};
  for (const QueuedOp& op : work_.ops) {
    results_.push_back(op.result.lock());
    live_.push_back(results_.back() != nullptr);
  }
  try {
    if (executor_ == nullptr) throw ExecutionError("[fusion] the device was destroyed");
    const std::span<backend::BufferPtr> buffers = executor_->run(work_, live_, scratch_);
    for (std::size_t i = 0; i < results_.size(); ++i) {
      if (!results_[i]) continue;
      results_[i]->state_ = LazyBuffer::State::Computed;
      results_[i]->inner_ = std::move(buffers[i]);
    }
  } catch (const ExecutionError& e) {
    keep_computed_locked();
    fail_results(work_, e.what());
    throw;
  } catch (const std::exception& e) {
    const std::string message = std::string("[fusion] queued ops failed: ") + e.what();
    keep_computed_locked();
    fail_results(work_, message);
    throw ExecutionError(message);
  }
}

void Stream::keep_computed_locked() {
  // The executor stores a result only once its op ran: those keep their values.
  for (std::size_t i = 0; i < results_.size() && i < scratch_.results.size(); ++i) {
    if (!results_[i] || !scratch_.results[i]) continue;
    results_[i]->state_ = LazyBuffer::State::Computed;
    results_[i]->inner_ = std::move(scratch_.results[i]);
  }
}

void Stream::clear_locked() {
  for (backend::Operand& external : work_.externals)
    detail::recycle(std::move(external.meta.shape));
  for (QueuedOp& op : work_.ops)
    detail::recycle(std::move(op.output.shape));
  work_.clear();
  // Clearing an empty hash still wipes its bucket array.
  if (!external_index_.empty()) external_index_.clear();
  results_.clear();
  live_.clear();
  scratch_.inputs.clear();
  scratch_.results.clear();
}

void Stream::fail_results(const PendingWork& work, const std::string& message) {
  for (const QueuedOp& op : work.ops) {
    const std::shared_ptr<LazyBuffer> result = op.result.lock();
    if (result && result->state_ == LazyBuffer::State::Queued) {
      result->state_ = LazyBuffer::State::Failed;
      result->error_ = message;
    }
  }
}

}  // namespace ember::fusion
