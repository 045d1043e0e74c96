// Autodiff: first-order reverse-mode differentiation, a property of the device. A tensor on an
// autodiff device that requires grad (a leaf) or was computed from one is tracked: the Tensor
// API records each op on it in a graph that backward() walks. Everything else is a constant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "ember/device.h"
#include "ember/tensor_handle.h"

namespace ember {

/// The gradients one backward() produced, keyed by leaf tensor.
class Gradients {
 public:
  /// The gradient of leaf (same shape and dtype), or nullopt when none reached it.
  std::optional<TensorHandle> get(const TensorHandle& leaf) const;
  /// Removes and returns leaf's gradient.
  std::optional<TensorHandle> remove(const TensorHandle& leaf);
  /// Sets leaf's gradient; InvalidArgument when grad's shape differs from leaf's.
  void replace(const TensorHandle& leaf, const TensorHandle& grad);
  std::size_t size() const { return grads_.size(); }
  bool empty() const { return grads_.empty(); }

  /// Used by backward: adds grad to the leaf with id leaf_id.
  void accumulate(uint64_t leaf_id, const TensorHandle& grad);

 private:
  std::unordered_map<uint64_t, TensorHandle> grads_;
};

/// While alive, ops on this thread are not recorded (inference, optimizer updates).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

namespace autodiff {
/// Whether ops on this thread are recorded now (false inside a NoGradGuard).
bool is_recording();
/// Bytes of tensor data the live autodiff graphs on device keep for backward (each buffer
/// counted once). Compare GradientCheckpointingStrategy::Balanced with Disabled with it.
uint64_t retained_bytes(const Device& device);
}  // namespace autodiff

namespace ops {
/// x as a leaf that requires grad (x's device must have autodiff on, x must be Float);
/// InvalidArgument otherwise.
TensorHandle require_grad(const TensorHandle& x);
/// require_grad(x) when on, else x detached.
TensorHandle set_require_grad(const TensorHandle& x, bool on);
/// Whether x is a leaf that requires grad.
bool is_require_grad(const TensorHandle& x);
/// Whether x takes part in a graph (a leaf that requires grad, or computed from one).
bool is_tracked(const TensorHandle& x);
/// The same values, cut from the graph (a constant).
TensorHandle detach(const TensorHandle& x);
/// Backpropagates from x (seeded with ones when x has more than one element) and releases
/// x's graph. InvalidArgument when x is not tracked or its graph was already released.
Gradients backward(const TensorHandle& x);
}  // namespace ops

}  // namespace ember
