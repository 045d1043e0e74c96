// NCCL: the collectives of CUDA devices, on device memory and the devices' streams. Compiled with
// the cuda backend so that it keeps building, but NOT RUN yet: no machine with two GPUs was lent
// while it was written, and the tensors of the cuda backend do not expose their device address
// and stream to this layer yet, so collectives on CUDA tensors still take the host path of
// group.cpp (docs/data_parallel.md says what is left). libnccl.so.2 is opened at run time, as the
// cuda backend opens the toolkit's libraries, so that a build with CUDA runs where NCCL is not
// installed.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "collective/process_link.h"
#include "ember/collective.h"
#include "ember/dtype.h"

namespace ember::collective::nccl {

struct Api;

/// One NCCL communicator per GPU of a device group of this process, the group's ranks numbered
/// process by process. Created once per group and cached for the process's life: a collective
/// finds its group's communicators with get(), it never creates them again.
class Communicators {
 public:
  /// The communicators of gpus (device indices, one rank each) of this process among
  /// process.world_size processes, each bringing as many GPUs. The first call for a group
  /// creates them: with NVLink multicast off (NCCL_NVLS_ENABLE=0), NCCL's unique id going from
  /// process 0 to the others through link (null in a single process), and make_current(i)
  /// making GPU i's context current before its communicator is made. ExecutionError naming
  /// NCCL's error when libnccl.so.2 cannot be opened or NCCL fails.
  static std::shared_ptr<Communicators> get(const std::vector<int>& gpus,
                                            const ProcessInfo& process, ProcessLink* link,
                                            const std::function<void(int)>& make_current);
  ~Communicators();
  Communicators(const Communicators&) = delete;
  Communicators& operator=(const Communicators&) = delete;

  // Each enqueues the collective of local GPU `local` on stream, asynchronously; buffers are
  // device memory of that GPU. One thread driving several GPUs brackets one collective's calls
  // with group_start() and group_end(). counts are elements.

  void all_reduce(int local, const void* send, void* recv, std::size_t count, DType dtype,
                  ReduceOp op, CUstream stream) const;
  void broadcast(int local, const void* send, void* recv, std::size_t count, DType dtype, int root,
                 CUstream stream) const;
  /// recv_count elements per rank: send holds size() × recv_count.
  void reduce_scatter(int local, const void* send, void* recv, std::size_t recv_count, DType dtype,
                      ReduceOp op, CUstream stream) const;
  /// send_count elements per rank: recv holds size() × send_count.
  void all_gather(int local, const void* send, void* recv, std::size_t send_count, DType dtype,
                  CUstream stream) const;
  void group_start() const;
  void group_end() const;

 private:
  Communicators(const Api& api, std::vector<void*> comms);
  const Api& api_;
  std::vector<void*> comms_;  // ncclComm_t, one per local GPU
};

}  // namespace ember::collective::nccl
