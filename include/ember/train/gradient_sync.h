// GradientSync: one rank's gradients summed over the ranks of a data-parallel group in buckets,
// each bucket all-reduced as soon as backward has produced all of its gradients (through the
// gradient hook, ember/gradient_hook.h), on a thread of its own, so that communication overlaps
// the rest of backward. Used once per step:
//
//   GradientSync sync(comm, nn::named_parameters(replica), bucket_bytes);
//   ops::backward(loss.handle(), sync.hook());
//   optim::GradientsParams grads = sync.finish();   // the sums, by param name
//
// The buckets are fixed by the params alone (reverse member order, the order backward mostly
// reaches them, cut at bucket_bytes and where the dtype changes), and are sent in that order
// whatever order the gradients come in, so every rank makes the same collective calls.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ember/collective.h"
#include "ember/gradient_hook.h"
#include "ember/nn/module.h"
#include "ember/optim/gradients_params.h"

namespace ember::train {

class GradientSync {
 public:
  /// params: the replica's params (frozen ones are left out), with their names.
  GradientSync(collective::Communicator& comm, const std::vector<nn::NamedTensor>& params,
               std::size_t bucket_bytes);
  /// Waits for the bucket being reduced, if finish() was not called (backward failed).
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  /// The hook for ops::backward; valid while this object lives.
  GradientHook hook();
  /// After backward: sends the buckets not sent yet (a param that got no gradient counts as
  /// zeros) and waits for every bucket. The summed gradient of every trainable param, by name;
  /// rethrows what a collective threw.
  optim::GradientsParams finish();

 private:
  struct Slot {
    std::string name;
    TensorHandle param;
    TensorHandle grad;  ///< this rank's, then the sum
    std::size_t bucket;
  };
  struct Bucket {
    std::vector<std::size_t> slots;
    std::size_t ready = 0;
  };

  void on_gradient(uint64_t leaf_id, const TensorHandle& grad);
  /// Queues the buckets, in order, as long as the next one is complete (lock held).
  void send_ready();
  void work();
  void reduce(Bucket& bucket);

  collective::Communicator& comm_;
  std::vector<Slot> slots_;
  std::unordered_map<uint64_t, std::size_t> slot_of_leaf_;
  std::vector<Bucket> buckets_;
  std::size_t next_to_send_ = 0;

  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<std::size_t> queue_;
  std::size_t reduced_ = 0;  ///< buckets done (or skipped after an error)
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread worker_;
};

}  // namespace ember::train
