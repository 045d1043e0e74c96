// Gradient hooks: backward hands each leaf's gradient to a callback as soon as it is final, while
// the rest of the graph is still being walked. Data-parallel training (train/data_parallel.h)
// starts all-reducing a bucket of gradients there, overlapping communication with backward.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "ember/autodiff.h"
#include "ember/tensor_handle.h"

namespace ember {

/// Called by backward, on backward's thread, once for every leaf a gradient reaches, as soon as
/// that gradient is final (every op that used the leaf has passed its part on): with the leaf's
/// id (ops::leaf_id) and the gradient, the one Gradients then holds. Backward waits for it to
/// return, so heavy work (an all-reduce) belongs on another thread. An exception it throws ends
/// backward (the graph is released all the same).
using GradientHook = std::function<void(uint64_t leaf_id, const TensorHandle& gradient)>;

namespace ops {
/// backward(x), calling on_final for each leaf's gradient as it becomes final.
Gradients backward(const TensorHandle& x, const GradientHook& on_final);
/// The id the gradient of x (a leaf that requires grad) goes under in backward, the one a
/// GradientHook receives; nullopt when x is not such a leaf. A param's update makes a new leaf,
/// with a new id.
std::optional<uint64_t> leaf_id(const TensorHandle& x);
}  // namespace ops

}  // namespace ember
