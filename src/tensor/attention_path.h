// Which path ops::scaled_dot_product_attention takes (src/tensor/attention.cpp): the fused op
// ir::Attention where the device's backend runs it fused (Backend::runs_fused_attention) and
// nothing asks for more than it computes, else the composite of matmul, softmax and the mask ops,
// its oracle. A scope may force either path on the calling thread, so that tests compare the two
// on any device (ndarray runs ir::Attention with its reference kernel).
#pragma once

#include <cstdint>

namespace ember::tensor {

enum class AttentionPath : uint8_t {
  Backend,    ///< the backend's choice (the default)
  Fused,      ///< ir::Attention wherever the op takes the arguments (no dropout, ...)
  Composite,  ///< always the composite
};

/// Sets the calling thread's path for its lifetime, then restores the previous one.
class AttentionPathScope {
 public:
  explicit AttentionPathScope(AttentionPath path);
  ~AttentionPathScope();
  AttentionPathScope(const AttentionPathScope&) = delete;
  AttentionPathScope& operator=(const AttentionPathScope&) = delete;

 private:
  AttentionPath previous_;
};

/// The calling thread's path.
AttentionPath attention_path();

}  // namespace ember::tensor
