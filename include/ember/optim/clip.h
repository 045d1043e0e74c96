// Gradient clipping (torch.nn.utils.clip_grad_norm_ and clip_grad_value_), applied to the
// gradients between backward and the optimizer step.
#pragma once

#include <limits>

#include "ember/optim/gradients_params.h"

namespace ember::optim {

/// The infinity norm for clip_grad_norm: the largest absolute value.
inline constexpr double kInfinityNorm = std::numeric_limits<double>::infinity();

/// Scales every gradient by min(1, max_norm / (total + 1e-6)), total being the norm_type-norm of
/// all gradients together (as if concatenated into one vector), and returns total. PyTorch's
/// formula: the 1e-6 keeps the division finite, so a gradient at exactly max_norm is scaled by a
/// factor just below 1. norm_type is any p > 0 (sum |g|^p)^(1/p), or kInfinityNorm (max |g|).
/// No gradient: returns 0. A non-finite total is not an error (PyTorch's default): the
/// gradients are scaled all the same (by 0 for an infinite total, by NaN for a NaN one).
/// InvalidArgument "[clip_grad_norm] ..." for max_norm < 0 or NaN, or norm_type <= 0 or NaN.
double clip_grad_norm(GradientsParams& grads, double max_norm, double norm_type = 2.0);

/// Clamps every gradient element into [-value, value]. InvalidArgument "[clip_grad_value] ..."
/// for value < 0 or NaN.
void clip_grad_value(GradientsParams& grads, double value);

}  // namespace ember::optim
