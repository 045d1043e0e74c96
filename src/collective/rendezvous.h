// Rendezvous: where the ranks of one process meet for a collective, in shared memory. Each rank
// hands in its call and its tensor's host copy; the last to arrive checks that the calls agree and
// runs the collective on all the inputs (in rank order), and every rank takes its own output.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "collective/host_data.h"
#include "ember/tensor_data.h"

namespace ember::collective {

class Rendezvous {
 public:
  /// A rank's output; ranks with the same result share one (it is never written).
  using Output = std::shared_ptr<const TensorData>;
  /// The outputs of one collective, one per rank, from the inputs in rank order.
  using Combine = std::function<std::vector<Output>(std::vector<TensorData>&)>;

  Rendezvous(int parties, std::chrono::milliseconds timeout);

  /// Rank party's output of the collective call. InvalidArgument (on every rank) when the calls
  /// disagree; whatever combine throws, on every rank; ExecutionError when the other ranks do not
  /// all arrive within the timeout: the rendezvous is then broken, and every later call fails.
  Output exchange(int party, const Call& call, TensorData input, const Combine& combine);

  /// Breaks the rendezvous: waiting and later calls throw ExecutionError with reason.
  void abort(const std::string& reason);

 private:
  struct Outcome {
    std::vector<Output> outputs;
    std::exception_ptr error;
  };

  /// Runs combine on the inputs (the caller is the last to arrive; the lock is released).
  void finish(std::unique_lock<std::mutex>& lock, const Combine& combine);
  /// Waits for generation to pass; ExecutionError on timeout or abort.
  void wait_for(std::unique_lock<std::mutex>& lock, uint64_t generation, const Call& call,
                int party);
  void throw_if_broken(const Call& call) const;
  std::string missing() const;

  const int parties_;
  const std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t generation_ = 0;
  int arrived_ = 0;
  bool combining_ = false;
  std::vector<std::optional<Call>> calls_;
  std::vector<TensorData> inputs_;
  std::shared_ptr<Outcome> outcome_;  ///< the last finished generation's
  std::optional<std::string> broken_;
};

}  // namespace ember::collective
