#include "fusion/fusion_backend.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "ember/error.h"
#include "fusion/fusible.h"
#include "fusion/lazy_buffer.h"
#include "fusion/stream.h"

namespace ember::fusion {
namespace {

/// No backend has this id (next_backend_id would take 2^64 backends to reach it).
constexpr uint64_t kNoBackend = std::numeric_limits<uint64_t>::max();

uint64_t next_backend_id() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

/// Whether operand is a lazy buffer of another stream than own (null: of any stream).
bool is_foreign(const backend::Operand& operand, const Stream* own) {
  const LazyBuffer* lazy = as_lazy(operand.buffer.get());
  return lazy != nullptr && &lazy->stream() != own;
}

/// inputs with each lazy buffer of another stream than own (null: every lazy buffer) replaced by
/// the inner buffer it stands for. Inputs without such buffers are passed on as they are (no
/// copy); storage holds the copy otherwise.
std::span<const backend::Operand> resolved(std::span<const backend::Operand> inputs,
                                           const Stream* own,
                                           std::vector<backend::Operand>& storage) {
  if (std::ranges::none_of(inputs, [&](const auto& input) { return is_foreign(input, own); }))
    return inputs;
  storage.reserve(inputs.size());
  for (const backend::Operand& input : inputs) {
    LazyBuffer* lazy = is_foreign(input, own) ? as_lazy(input.buffer.get()) : nullptr;
    storage.push_back(lazy != nullptr ? backend::Operand{lazy->resolve(), input.meta} : input);
  }
  return storage;
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
    : inner_(std::move(inner)),
      options_(options),
      fusible_(inner_->fusion_support()),
      executor_(*inner_, inner_->fusion_support().runs_programs),
      id_(next_backend_id()) {
  if (options_.max_queued == 0) throw InvalidArgument("[fusion] max_queued must be at least 1");
}

FusionBackend::~FusionBackend() {
  const std::lock_guard lock(streams_mutex_);
  for (const std::weak_ptr<Stream>& weak : streams_) {
    if (const std::shared_ptr<Stream> stream = weak.lock()) stream->detach();
  }
}

backend::Outputs FusionBackend::execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                                        std::span<const ir::TensorMeta> outputs) {
  std::vector<backend::Operand> storage;
  if (!options_.enabled || !fusible_.admits(op, inputs, outputs))
    return inner_->execute(op, resolved(inputs, nullptr, storage), outputs);
  Stream& stream = this_thread_stream();
  // Another stream's buffer is computed now, before this stream is locked: a thread never
  // holds two streams' locks, so two threads reading each other's buffers cannot deadlock.
  backend::Outputs result;  // not {lazy}, which would copy it out of the list
  result.push_back(stream.enqueue(op, resolved(inputs, &stream, storage), outputs[0]));
  return result;
}

TensorData FusionBackend::read(const backend::Operand& operand) {
  std::vector<backend::Operand> storage;
  return inner_->read(resolved({&operand, 1}, nullptr, storage).front());
}

std::optional<backend::HostMemory> FusionBackend::share_host_memory(
    const backend::Operand& operand) {
  std::vector<backend::Operand> storage;
  return inner_->share_host_memory(resolved({&operand, 1}, nullptr, storage).front());
}

void FusionBackend::sync() {
  execute_this_thread();
  inner_->sync();
}

void FusionBackend::flush() {
  execute_this_thread();
  inner_->flush();
}

// The queue runs at both edges, so each queued op allocates in the mode it was queued under.
void FusionBackend::begin_persistent_allocations() {
  execute_this_thread();
  inner_->begin_persistent_allocations();
}

void FusionBackend::end_persistent_allocations() noexcept {
  try {
    execute_this_thread();
  } catch (...) {
    // Nothing is lost: a queued op that failed marks its results, which throw when used.
  }
  inner_->end_persistent_allocations();
}

Stream& FusionBackend::this_thread_stream() {
  // Note: keyed by backend id, which is never reused, so the entry a thread keeps for a
  // destroyed backend (an empty, detached stream) is never matched again. Entries live as long
  // as the thread, so the last one found may be remembered: a thread mostly works on one device.
  thread_local std::unordered_map<uint64_t, std::shared_ptr<Stream>> streams;
  thread_local std::pair<uint64_t, Stream*> last{kNoBackend, nullptr};
  if (last.first == id_) return *last.second;
  std::shared_ptr<Stream>& stream = streams[id_];
  if (!stream) {
    stream = std::make_shared<Stream>(executor_, options_.max_queued);
    const std::lock_guard lock(streams_mutex_);
    std::erase_if(streams_, [](const std::weak_ptr<Stream>& s) { return s.expired(); });
    streams_.push_back(stream);
  }
  last = {id_, stream.get()};
  return *stream;
}

void FusionBackend::execute_this_thread() {
  if (options_.enabled) this_thread_stream().execute();
}

}  // namespace ember::fusion
