// RetainedHandle: a tensor value an autodiff node keeps for backward. While any RetainedHandle
// holds a buffer, the buffer's bytes count in autodiff::retained_bytes of its device (each buffer
// once, however many nodes keep it).
#pragma once

#include "ember/tensor_handle.h"

namespace ember::autodiff {

class RetainedHandle {
 public:
  /// Holds nothing (a value not kept).
  RetainedHandle() = default;
  /// Keeps x's value cut from the graph: a handle without a node on the same buffer, so a node
  /// never owns another node through its saved values (no reference cycles).
  explicit RetainedHandle(const TensorHandle& x);
  ~RetainedHandle();
  RetainedHandle(RetainedHandle&& other) noexcept;
  RetainedHandle& operator=(RetainedHandle&& other) noexcept;
  RetainedHandle(const RetainedHandle&) = delete;
  RetainedHandle& operator=(const RetainedHandle&) = delete;

  bool defined() const { return handle_.defined(); }
  const TensorHandle& handle() const { return handle_; }

 private:
  void reset();

  TensorHandle handle_;
};

}  // namespace ember::autodiff
