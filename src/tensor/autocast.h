// Autocast in the Tensor API: the one place that applies ir::autocast_policy to an op's inputs
// (Device::autocast, docs/mixed-precision.md). tensor::run (dispatch.cpp) calls it for an op
// with an input on an autocast device, so the check costs ops elsewhere one branch.
#pragma once

#include <optional>
#include <span>

#include "ember/dtype.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"

namespace ember::tensor {

/// While alive, ops on this thread run in the dtypes they are given, on autocast devices too.
/// Autodiff's backward pass holds one: backward ops run in the dtypes of the forward ops they
/// differentiate (PyTorch's rule), and an op recomputed for checkpointing repeats exactly what the
/// forward pass ran. (NoGradGuard does not suspend autocast: inference runs autocast too.)
class AutocastSuspended {
 public:
  AutocastSuspended();
  ~AutocastSuspended();
  AutocastSuspended(const AutocastSuspended&) = delete;
  AutocastSuspended& operator=(const AutocastSuspended&) = delete;

 private:
  bool previous_;
};

/// inputs as op runs them under autocast to dtype: each eligible float input cast (ops::cast,
/// recorded by autodiff like any op) to the dtype op's policy names. nullopt when nothing is to
/// be cast: op keeps its dtypes, its inputs are in the policy's dtype already, or autocast is
/// suspended on this thread.
std::optional<ops::Handles> autocast_inputs(const ir::Op& op, FloatDType dtype,
                                            std::span<const TensorHandle> inputs);

}  // namespace ember::tensor
