// The work one batch (a run, or a replay of a kept sequence) may ask of the server's device:
// elements its ops make, and element operations they compute (ServeOptions::max_batch_elements,
// max_batch_work). Without it one small hostile request (a random tensor of the session's byte
// limit, a matmul of huge contraction) would cost minutes of the device's time. An op over the
// budget fails like any op on the device: the client sees an ExecutionError naming it and the
// figures, and the session goes on.
#pragma once

#include <cstdint>
#include <span>

#include "ir/ops.h"

namespace ember::serve {

/// An estimate of the element operations op computes: for an op that contracts (matmul,
/// convolutions, pooling windows, attention) its products, for any other the elements it reads
/// and makes. A double, since hostile shapes overflow any integer.
double op_work(const ir::Op& op, std::span<const ir::TensorMeta> inputs,
               std::span<const ir::TensorMeta> outputs);

class WorkBudget {
 public:
  WorkBudget(uint64_t max_elements, uint64_t max_work)
      : max_elements_(max_elements), max_work_(max_work) {}

  /// A new batch: nothing spent yet.
  void start_batch() { elements_ = work_ = 0; }
  /// Spends op's elements and work; ExecutionError "[remote] 'op' ..." naming the figures and
  /// the limit when the batch would go over either (nothing spent then).
  void spend(const ir::Op& op, std::span<const ir::TensorMeta> inputs,
             std::span<const ir::TensorMeta> outputs);

 private:
  double max_elements_;
  double max_work_;
  double elements_ = 0;
  double work_ = 0;
};

}  // namespace ember::serve
