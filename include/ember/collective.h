// Collectives (docs/data_parallel.md): all_reduce, broadcast, reduce_scatter and all_gather over
// a group of ranks. A rank is one device of one process: the devices a process lists (several
// replicas of one device count as different ranks) times the processes of the run.
//
//   collective::Group group = collective::Group::create({Device::cpu(), Device::cpu()});
//   group.run([&](collective::Communicator& comm) {   // one thread per local rank
//     TensorHandle sum = comm.all_reduce(local_tensor(comm.rank()), collective::ReduceOp::Sum);
//   });
//
// Within a process the ranks meet in shared memory: each call hands its tensor's host copy to the
// group, and the last rank to arrive reduces them in rank order (so float sums are the same from
// run to run). Across processes (WORLD_SIZE > 1) that process-local result goes through Gloo over
// TCP, bootstrapped from the torchrun-style variables RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT (or OpenMPI's OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE under mpirun).
//
// Every rank calls the same collectives in the same order. A call checks what the ranks passed:
// different shapes, dtypes or ops across ranks are InvalidArgument "[all_reduce] ..." on every
// rank; a tensor not on the communicator's device is InvalidArgument; a rank that does not arrive
// within the group's timeout (a peer that died) is ExecutionError on the ranks that waited, never
// a hang. The results are constants (not tracked by autodiff) on the communicator's device.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/tensor_handle.h"

namespace ember::collective {

enum class ReduceOp {
  Sum,   ///< elementwise sum, in rank order
  Mean,  ///< the sum divided by the group's size (Float dtypes only)
  Max,   ///< elementwise maximum
};

/// Where this process stands among the processes of a run.
struct ProcessInfo {
  int rank = 0;        ///< 0 .. world_size - 1
  int world_size = 1;  ///< processes in the run
  /// Where process 0 serves the rendezvous store ("host" or address, and port): needed when
  /// world_size > 1.
  std::string master_addr;
  uint16_t master_port = 0;

  /// From the environment: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (torchrun and the like),
  /// else OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE (mpirun; MASTER_ADDR/MASTER_PORT are then
  /// still needed). Under torchrun (TORCHELASTIC_USE_AGENT_STORE=True), whose agent serves a
  /// store of its own on MASTER_PORT, ember's is on MASTER_PORT + 1. None set: a single process.
  /// InvalidArgument "[collective] ..." naming the variable when one is malformed or missing.
  static ProcessInfo from_environment();
};

struct GroupOptions {
  /// How long a collective waits for the other ranks (and the start for the other processes).
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

/// One rank's end of a group: the collectives, each called by every rank of the group.
class Communicator {
 public:
  virtual ~Communicator() = default;
  /// This rank, 0 .. size() - 1: process rank × local ranks per process + local rank.
  virtual int rank() const = 0;
  /// The ranks in the group (every process's).
  virtual int size() const = 0;
  /// The device this rank's tensors live on.
  virtual const Device& device() const = 0;

  /// x reduced elementwise over the ranks (same shape and dtype everywhere).
  virtual TensorHandle all_reduce(const TensorHandle& x, ReduceOp op) = 0;
  /// Rank root's x on every rank (same shape and dtype everywhere).
  virtual TensorHandle broadcast(const TensorHandle& x, int root) = 0;
  /// x reduced over the ranks, then cut along dim 0 into size() equal parts: this rank's part.
  /// InvalidArgument when dim 0 is not a multiple of size().
  virtual TensorHandle reduce_scatter(const TensorHandle& x, ReduceOp op) = 0;
  /// Every rank's x concatenated along dim 0 in rank order.
  virtual TensorHandle all_gather(const TensorHandle& x) = 0;

 protected:
  Communicator() = default;
  Communicator(const Communicator&) = default;
  Communicator& operator=(const Communicator&) = default;
};

class GroupState;

/// The ranks of this process and their communicators. Moveable, not copyable; the communicators
/// live as long as the group.
class Group {
 public:
  /// A group of the given devices of this process (one rank each) and of the processes the
  /// environment names (ProcessInfo::from_environment). InvalidArgument for an empty list;
  /// ExecutionError when the other processes cannot be reached within the timeout.
  static Group create(std::vector<Device> devices, GroupOptions options = {});
  /// The same with the process information given.
  static Group create(std::vector<Device> devices, const ProcessInfo& process,
                      GroupOptions options = {});

  Group(Group&&) noexcept;
  Group& operator=(Group&&) noexcept;
  ~Group();

  /// Ranks in the group (every process's).
  int size() const;
  /// Ranks in this process.
  int local_size() const;
  /// The rank of this process's first device.
  int first_rank() const;
  const ProcessInfo& process() const;
  /// The communicator of local rank i (0 .. local_size() - 1).
  Communicator& communicator(int local_rank);

  /// Runs f(communicator) on one thread per local rank and waits for them all; rethrows the first
  /// exception a thread threw (the others are told to stop waiting for it first, so none hangs).
  void run(const std::function<void(Communicator&)>& f);

 private:
  explicit Group(std::unique_ptr<GroupState> state);
  std::unique_ptr<GroupState> state_;
};

}  // namespace ember::collective
