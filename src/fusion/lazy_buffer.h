// LazyBuffer: what the fusion decorator returns for a queued op — a promise of an inner
// backend's buffer. It is computed when its stream executes (stream.h); resolve() makes that
// happen now, from whichever thread asks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <typeinfo>

#include "backends/backend.h"

namespace ember::fusion {

class Stream;

class LazyBuffer final : public backend::Buffer {
 public:
  LazyBuffer(std::shared_ptr<Stream> stream, uint32_t index)
      : stream_(std::move(stream)), index_(index) {}

  /// The stream that queued this buffer's op.
  const Stream& stream() const { return *stream_; }
  /// The inner backend's buffer holding the value, executing the owning stream first while the
  /// op is still queued. ExecutionError when the op (or the queue it was in) failed.
  backend::BufferPtr resolve();

 private:
  friend class Stream;  // owns the state below, which its mutex guards
  enum class State : uint8_t { Queued, Computed, Failed };

  std::shared_ptr<Stream> stream_;
  State state_ = State::Queued;
  uint32_t index_;            ///< Queued: the op's position in the stream's pending work
  backend::BufferPtr inner_;  ///< Computed: the value
  std::string error_;         ///< Failed: why
};

/// buffer as a lazy buffer, or null when it is an inner backend's. Note: LazyBuffer is final, so
/// comparing the exact type suffices; it runs for every operand of every op, where a dynamic_cast
/// (a walk of the class hierarchy) is a noticeable part of an op on a tiny tensor. So is the
/// string comparison by which two different types' type_infos compare unequal: the last other
/// type seen is remembered, and a type_info at its address is that type.
inline LazyBuffer* as_lazy(backend::Buffer* buffer) {
  if (buffer == nullptr) return nullptr;
  thread_local const std::type_info* last_other = nullptr;
  const std::type_info& type = typeid(*buffer);
  if (&type == last_other) return nullptr;
  if (type == typeid(LazyBuffer)) return static_cast<LazyBuffer*>(buffer);
  last_other = &type;
  return nullptr;
}

}  // namespace ember::fusion
