#include "fusion/stream.h"

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember::fusion {
backend::BufferPtr Stream::enqueue(const ir::Op& op, std::span<const backend::Operand> inputs,
                                   const ir::TensorMeta& output) {
  const std::lock_guard lock(mutex_);
  std::vector<ValueRef> args;
  args.reserve(inputs.size());
  for (const backend::Operand& input : inputs)
    args.push_back(argument_locked(input));
  const auto index = static_cast<uint32_t>(work_.ops.size());
  auto result = std::make_shared<LazyBuffer>(shared_from_this(), index);
  work_.ops.push_back({op, std::move(args), output, result});
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
  backend::Operand external = operand;
  if (auto* lazy = dynamic_cast<LazyBuffer*>(operand.buffer.get())) {
    // The backend hands over only this stream's lazy buffers: their state is ours to read.
    switch (lazy->state_) {
      case LazyBuffer::State::Queued:
        return {ValueRef::Kind::Queued, lazy->index_};
      case LazyBuffer::State::Failed:
        throw ExecutionError(lazy->error_);
      case LazyBuffer::State::Computed:
        external.buffer = lazy->inner_;
        break;
    }
  }
  const auto [at, added] = external_index_.try_emplace(
      external.buffer.get(), static_cast<uint32_t>(work_.externals.size()));
  if (added) work_.externals.push_back(std::move(external));
  return {ValueRef::Kind::External, at->second};
}

void Stream::execute_locked() {
  if (work_.ops.empty()) return;
  const PendingWork work = std::exchange(work_, {});
  external_index_.clear();
  // Holding the live results keeps them live until they are computed.
  std::vector<std::shared_ptr<LazyBuffer>> results;
  std::vector<bool> live;
  for (const QueuedOp& op : work.ops) {
    results.push_back(op.result.lock());
    live.push_back(results.back() != nullptr);
  }
  try {
    if (executor_ == nullptr) throw ExecutionError("[fusion] the device was destroyed");
    const std::vector<backend::BufferPtr> buffers = executor_->run(work, live);
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i]) continue;
      results[i]->state_ = LazyBuffer::State::Computed;
      results[i]->inner_ = buffers[i];
    }
  } catch (const ExecutionError& e) {
    fail_results(work, e.what());
    throw;
  } catch (const std::exception& e) {
    const std::string message = std::string("[fusion] queued ops failed: ") + e.what();
    fail_results(work, message);
    throw ExecutionError(message);
  }
}

void Stream::fail_results(const PendingWork& work, const std::string& message) {
  for (const QueuedOp& op : work.ops) {
    if (const std::shared_ptr<LazyBuffer> result = op.result.lock()) {
      result->state_ = LazyBuffer::State::Failed;
      result->error_ = message;
    }
  }
}

}  // namespace ember::fusion
