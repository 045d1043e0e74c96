// The ember side of the op benchmarks (op_bench.cpp and cuda_bench.cpp time them;
// bench/peer_torch/ops.py and cuda_ops.py are the PyTorch sides, op for op): each workload's
// inputs are made once, and its step runs the op.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/tensor_handle.h"

namespace ember::bench {

/// A workload as op_bench's flags (and bench/run_ops.py) give it, or cuda_bench's list.
struct OpSpec {
  /// add mul exp tanh gelu (elementwise, on shape), copy (a plain copy of a contiguous tensor:
  /// cat of the one tensor), sum argmax softmax (along dim of shape), matmul (shape [m, k, n]),
  /// argmin max min log_softmax (along dim), layer_norm rms_norm (over the last dim, with weight
  /// and layer_norm's bias), cross_entropy (logits [N, C], targets i mod C, mean), and
  /// softmax log_softmax layer_norm rms_norm cross_entropy + "_backward" (forward and backward
  /// from a seed of ones, returning the input's gradient),
  /// conv2d (input shape [N, C, H, W], out_channels, a square kernel, padding, no bias),
  /// max_pool2d (input shape, a square kernel and stride), mlp_train (shape [batch, in, hidden1,
  /// hidden2, out]: one SGD step of a 3-layer relu MLP), attention and attention_backward (q, k
  /// and v of shape [B, H, L, E]: scaled_dot_product_attention, and with its backward), random
  /// uniform normal bernoulli (a new random tensor of shape: u on [0, 1), uniform on [-3, 5),
  /// normal(0, 1), bernoulli(0.9); ember only, a PyTorch peer draws other values).
  std::string op;
  std::vector<int64_t> shape;
  int64_t dim = -1;
  int64_t out_channels = 0;
  int64_t kernel = 0;
  int64_t padding = 0;
  /// The dtype of the inputs (the f32 pattern cast to it, as the PyTorch peers make theirs) of
  /// every op but mlp_train, whose f32 model runs on device.autocast(dtype) for bf16 or f16
  /// (torch.autocast on the peer's side).
  DType dtype = DType::F32;
};

/// Runs the workload once and returns its output (for mlp_train, the step's loss).
using Step = std::function<TensorHandle()>;

/// The step of spec on device, inputs already made (bench/support/pattern.h). InvalidArgument
/// "[op_bench] ..." for an unknown op or a shape of the wrong rank.
Step make_step(const OpSpec& spec, const Device& device);

}  // namespace ember::bench
