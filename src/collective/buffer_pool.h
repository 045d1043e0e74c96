// Host buffers the collectives reuse: a fresh 16 MiB buffer costs about 50 ms of first-touch page
// faults on the VMs here (shared/BENCHMARKING.md), far more than the sum itself, so a rank's copy
// and the results go back to a pool of the group when they die, and the next call takes them.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "collective/rendezvous.h"
#include "ember/tensor_data.h"
#include "ember/tensor_handle.h"

namespace ember::collective {

class BufferPool : public std::enable_shared_from_this<BufferPool> {
 public:
  /// A buffer of bytes bytes (its contents undefined): a kept one when one is large enough.
  std::vector<std::byte> take(std::size_t bytes);
  /// Keeps bytes for a later take (a few of them; the rest are freed).
  void give_back(std::vector<std::byte> bytes);
  /// data as a result shared by ranks, its bytes coming back here when the last holder dies.
  Rendezvous::Output output(TensorData data);
  /// x's values on the host in a buffer of this pool: read from x's memory where its device keeps
  /// it on the host in row-major order (cpu, flex, ndarray), else copied out (into_data).
  TensorData host_copy(const TensorHandle& x);

 private:
  std::mutex mutex_;
  std::vector<std::vector<std::byte>> spare_;
};

}  // namespace ember::collective
