// The two paths of scaled_dot_product_attention side by side (tests/ndarray, tests/cuda): a case's
// inputs (deterministic values, masks that leave every row a key), and its result and input
// gradients along a forced path (tensor::FusedPathScope), through the public function and
// autodiff, so that the fused op is compared with the composite it stands for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/tensor_data.h"
#include "tensor/fused_path.h"

namespace ember::test {

enum class MaskKind { None, Bool, Float };

/// q [*batch, l, e], k [*batch, s, e], v [*batch, s, ev] and the mask of mask_shape.
struct AttentionCase {
  std::string name;
  Shape batch;
  int64_t l, s, e, ev;
  bool causal = false;
  MaskKind mask = MaskKind::None;
  Shape mask_shape = {};
};

/// batch's dims, then tail.
Shape with_tail(const Shape& batch, std::vector<int64_t> tail);
/// f64 values sin(seed + 1.7 i) in [-1, 1].
TensorData wavy_values(const Shape& shape, double seed);

/// The case's result and the gradients of q, k and v of sum(result * g) (g wavy), as f64 data:
/// on device (autodiff on), from inputs rounded to dtype and computed in compute, along path.
std::vector<TensorData> attend(const AttentionCase& c, const Device& device, DType dtype,
                               DType compute, tensor::FusedPath path);

}  // namespace ember::test
