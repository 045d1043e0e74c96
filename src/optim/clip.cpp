#include "ember/optim/clip.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "checks.h"
#include "ember/tensor_ops.h"

namespace ember::optim {
namespace {

double read_scalar(const TensorHandle& one_element) {
  return ops::into_data(one_element).to_vector<double>().front();
}

/// grad's norm_type-norm, computed on its device in its dtype (as torch.norm).
double norm_of(const TensorHandle& grad, double norm_type) {
  if (grad.shape().num_elements() == 0) return 0.0;
  const TensorHandle magnitude = ops::abs(grad);
  if (norm_type == kInfinityNorm) return read_scalar(ops::max(magnitude));
  const TensorHandle sum = ops::sum(ops::powf_scalar(magnitude, norm_type));
  return read_scalar(ops::powf_scalar(sum, 1.0 / norm_type));
}

/// The norm of the vector of per-gradient norms: the norm of all gradients together.
double combine_norms(const std::vector<double>& norms, double norm_type) {
  if (norm_type == kInfinityNorm) return *std::max_element(norms.begin(), norms.end());
  double sum = 0.0;
  for (double n : norms)
    sum += std::pow(n, norm_type);
  return std::pow(sum, 1.0 / norm_type);
}

}  // namespace

double clip_grad_norm(GradientsParams& grads, double max_norm, double norm_type) {
  if (!(max_norm >= 0)) {
    detail::fail("clip_grad_norm", "max_norm " + detail::format_number(max_norm) + " must be >= 0");
  }
  if (!(norm_type > 0)) {
    detail::fail("clip_grad_norm", "norm_type " + detail::format_number(norm_type) +
                                       " must be > 0 (or kInfinityNorm)");
  }
  if (grads.empty()) return 0.0;
  std::vector<double> norms;
  for (const auto& [name, grad] : grads)
    norms.push_back(norm_of(grad, norm_type));
  const double total = combine_norms(norms, norm_type);
  // PyTorch scales even by exactly 1 (and by NaN for a non-finite total): so do we.
  const double scale = std::min(max_norm / (total + 1e-6), 1.0);
  GradientsParams clipped;
  for (const auto& [name, grad] : grads)
    clipped.insert(name, ops::mul_scalar(grad, scale));
  grads = std::move(clipped);
  return total;
}

void clip_grad_value(GradientsParams& grads, double value) {
  if (!(value >= 0)) {
    detail::fail("clip_grad_value", "value " + detail::format_number(value) + " must be >= 0");
  }
  GradientsParams clipped;
  for (const auto& [name, grad] : grads)
    clipped.insert(name, ops::clamp(grad, -value, value));
  grads = std::move(clipped);
}

}  // namespace ember::optim
