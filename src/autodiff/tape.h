// The tape: how the Tensor API records ops into autodiff graphs, and backward over them.
//
// A tensor is tracked when its device has autodiff on and it is a leaf that requires grad or was
// computed by a recorded op; it then points at its graph node (TensorImpl::node). Everything else
// is a constant. tensor::run (dispatch.cpp) hands every op it ran to record().
//
// Threads: recording state is per thread, and several threads may record on one graph; a backward
// pass walks a graph on one thread at a time.
#pragma once

#include <span>

#include "ember/autodiff.h"
#include "ember/gradient_hook.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"

namespace ember::autodiff {

/// Attaches outputs of op on inputs, in place, to a new graph node when this thread is
/// recording, some input is tracked, op has a backward rule and some output is Float; else
/// leaves them unchanged. Attached outputs (the Float ones) take the tracked input's Device; the
/// others stay constants.
void record(const ir::Op& op, std::span<const TensorHandle> inputs,
            std::span<TensorHandle> outputs);

/// x as a new leaf that requires grad (x's device must have autodiff on and x must be Float).
TensorHandle make_leaf(const TensorHandle& x);

/// ops::backward: the gradients of x's graph's leaves, seeded with ones of x's shape; releases
/// every node it went through. on_final (may be null) sees each leaf's gradient once final.
Gradients backward(const TensorHandle& x, const GradientHook* on_final = nullptr);

}  // namespace ember::autodiff
