// Scratch memory a thread keeps from call to call: a kernel's per-task buffers allocate nothing
// after the first call, where a fresh std::vector per task was allocated and zeroed each time
// (512 KiB per block of a softmax across rows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ember::flex {

/// A buffer of at least n values of T, kept by the calling thread for the call site Site (a tag
/// type of the caller's, so that two callers active at once on one thread never share a
/// buffer). Its contents are whatever the thread's last call left: every value is written before
/// it is read.
template <typename Site, typename T>
T* thread_buffer(int64_t n) {
  thread_local std::vector<T> buffer;
  if (buffer.size() < static_cast<std::size_t>(n)) buffer.resize(static_cast<std::size_t>(n));
  return buffer.data();
}

}  // namespace ember::flex
