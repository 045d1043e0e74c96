// ProcessLink: the processes of a run joined for collectives on host data. Each process takes
// part through one thread at a time (the rank that finished its process's local step). Gloo over
// TCP implements it (gloo_link.cpp); a build without Gloo has none and refuses WORLD_SIZE > 1.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "collective/host_data.h"
#include "ember/collective.h"
#include "ember/tensor_data.h"

namespace ember::collective {

class ProcessLink {
 public:
  virtual ~ProcessLink() = default;
  /// InvalidArgument (in every process) unless every process passed the same call.
  virtual void check_same_call(const Call& call) = 0;
  /// data = the elementwise op (Sum or Max) over the processes, in place.
  virtual void all_reduce(TensorData& data, ReduceOp op) = 0;
  /// data = process root's data, in place.
  virtual void broadcast(TensorData& data, int root) = 0;
  /// Every process's data (same shape everywhere), in process order.
  virtual std::vector<TensorData> all_gather(const TensorData& data) = 0;
};

/// The link of process.rank among process.world_size processes, through the rendezvous store
/// process 0 serves at master_addr:master_port. ExecutionError when the others do not all join
/// within timeout; ConfigError in a build without Gloo.
std::unique_ptr<ProcessLink> connect_processes(const ProcessInfo& process,
                                               std::chrono::milliseconds timeout);

}  // namespace ember::collective
