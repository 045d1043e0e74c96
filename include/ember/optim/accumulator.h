// Gradient accumulation: several backward passes (micro-batches) summed into one optimizer
// step, to train with a batch larger than fits in memory at once.
#pragma once

#include <cstdint>

#include "ember/optim/gradients_params.h"

namespace ember::optim {

/// Sums GradientsParams by name. take() gives the sums, not the mean: for the gradient of the
/// mean loss over n micro-batches, divide each micro-batch's loss by n:
///
///   optim::GradientsAccumulator accumulator;
///   for (const Batch& batch : micro_batches) {
///     const Gradients grads = loss(model, batch).div_scalar(n).backward();
///     accumulator.add(optim::GradientsParams::from(model, grads));
///   }
///   optimizer.step(model, accumulator.take(), lr);
class GradientsAccumulator {
 public:
  /// Adds each gradient of grads to the sum of its name (a new name starts its sum). On a
  /// gradient whose shape or dtype differs from its name's sum: InvalidArgument
  /// "[GradientsAccumulator] ..." naming it, and nothing is added.
  void add(const GradientsParams& grads);
  /// The sums since the last take, and a fresh start (count 0, no sums).
  GradientsParams take();
  /// How many add calls the current sums hold.
  int64_t count() const { return count_; }

 private:
  GradientsParams sums_;
  int64_t count_ = 0;
};

}  // namespace ember::optim
