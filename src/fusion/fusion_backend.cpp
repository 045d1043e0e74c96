#include "fusion/fusion_backend.h"

#include <atomic>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "ember/error.h"
#include "fusion/fusible.h"
#include "fusion/lazy_buffer.h"
#include "fusion/stream.h"

namespace ember::fusion {
namespace {

uint64_t next_backend_id() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

/// operand with a lazy buffer replaced by the inner buffer it stands for.
backend::Operand resolved(const backend::Operand& operand) {
  if (auto* lazy = dynamic_cast<LazyBuffer*>(operand.buffer.get())) {
    return {lazy->resolve(), operand.meta};
  }
  return operand;
}

}  // namespace

FusionOptions FusionOptions::from_environment() {
  FusionOptions options;
  const char* value = std::getenv("EMBER_FUSION");
  options.enabled = value == nullptr || std::string_view(value) != "0";
  return options;
}

FusionBackend::FusionBackend(std::unique_ptr<backend::Backend> inner)
    : FusionBackend(std::move(inner), FusionOptions::from_environment()) {}

FusionBackend::FusionBackend(std::unique_ptr<backend::Backend> inner, FusionOptions options)
    : inner_(std::move(inner)), options_(options), executor_(*inner_), id_(next_backend_id()) {
  if (options_.max_queued == 0) throw InvalidArgument("[fusion] max_queued must be at least 1");
}

FusionBackend::~FusionBackend() {
  const std::lock_guard lock(streams_mutex_);
  for (const std::weak_ptr<Stream>& weak : streams_) {
    if (const std::shared_ptr<Stream> stream = weak.lock()) stream->detach();
  }
}

std::vector<backend::BufferPtr> FusionBackend::execute(const ir::Op& op,
                                                       std::span<const backend::Operand> inputs,
                                                       std::span<const ir::TensorMeta> outputs) {
  std::vector<backend::Operand> operands;
  operands.reserve(inputs.size());
  if (!options_.enabled || !is_fusible(op, inputs, outputs)) {
    for (const backend::Operand& input : inputs)
      operands.push_back(resolved(input));
    return inner_->execute(op, operands, outputs);
  }
  const std::shared_ptr<Stream> stream = this_thread_stream();
  for (const backend::Operand& input : inputs) {
    // Another stream's buffer is computed now, before this stream is locked: a thread never
    // holds two streams' locks, so two threads reading each other's buffers cannot deadlock.
    const auto* lazy = dynamic_cast<const LazyBuffer*>(input.buffer.get());
    const bool ours = lazy != nullptr && &lazy->stream() == stream.get();
    operands.push_back(ours ? input : resolved(input));
  }
  return {stream->enqueue(op, operands, outputs[0])};
}

TensorData FusionBackend::read(const backend::Operand& operand) {
  return inner_->read(resolved(operand));
}

void FusionBackend::sync() {
  execute_this_thread();
  inner_->sync();
}

void FusionBackend::flush() {
  execute_this_thread();
  inner_->flush();
}

void FusionBackend::set_persistent_allocations(bool on) {
  execute_this_thread();
  inner_->set_persistent_allocations(on);
}

std::shared_ptr<Stream> FusionBackend::this_thread_stream() {
  // Note: keyed by backend id, which is never reused, so the entry a thread keeps for a
  // destroyed backend (an empty, detached stream) is never matched again.
  thread_local std::unordered_map<uint64_t, std::shared_ptr<Stream>> streams;
  std::shared_ptr<Stream>& stream = streams[id_];
  if (!stream) {
    stream = std::make_shared<Stream>(executor_, options_.max_queued);
    const std::lock_guard lock(streams_mutex_);
    std::erase_if(streams_, [](const std::weak_ptr<Stream>& s) { return s.expired(); });
    streams_.push_back(stream);
  }
  return stream;
}

void FusionBackend::execute_this_thread() {
  if (options_.enabled) this_thread_stream()->execute();
}

}  // namespace ember::fusion
