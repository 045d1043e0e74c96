// Loss cases (generate.py's class_loss_cases and regression_loss_cases), one per reduction that
// changes the math: cross_entropy (class weights, label smoothing, ignore_index, probability
// targets, [N, C, d...] inputs), nll_loss, mse, l1, huber (delta), binary_cross_entropy_with_logits
// (pos_weight) and kl_div (batchmean, log_target). A third input is a class weight or pos_weight.
#include <cstdint>
#include <vector>

#include "pytorch/pytorch_cases.h"

namespace ember::test {
namespace {

using module::Reduction;
using enum Reduction;

TorchLoss cross_entropy(double label_smoothing = 0.0, int64_t ignore_index = -100) {
  return [=](const ops::Handles& x, Reduction r) {
    return ops::cross_entropy(x[0], x[1], optional_input(x, 2), r, label_smoothing, ignore_index);
  };
}

TorchLoss nll_loss(int64_t ignore_index = -100) {
  return [=](const ops::Handles& x, Reduction r) {
    return ops::nll_loss(x[0], x[1], optional_input(x, 2), r, ignore_index);
  };
}

TorchLoss kl_div(bool log_target) {
  return [=](const ops::Handles& x, Reduction r) { return ops::kl_div(x[0], x[1], r, log_target); };
}

TorchLoss huber(double delta) {
  return [=](const ops::Handles& x, Reduction r) { return ops::huber_loss(x[0], x[1], r, delta); };
}

std::vector<TorchCase> class_losses() {
  return concat({
      per_reduction("cross_entropy", {Mean, Sum, None}, cross_entropy()),
      per_reduction("cross_entropy/weight", {Mean, Sum, None}, cross_entropy()),
      per_reduction("cross_entropy/smoothing", {Mean, None}, cross_entropy(0.2)),
      per_reduction("cross_entropy/weight_smoothing", {Mean, Sum}, cross_entropy(0.3)),
      per_reduction("cross_entropy/ignore", {Mean, Sum, None}, cross_entropy()),
      per_reduction("cross_entropy/ignore_weight_smoothing", {Mean, None}, cross_entropy(0.1, 3)),
      per_reduction("cross_entropy/probabilities", {Mean, Sum, None}, cross_entropy()),
      per_reduction("cross_entropy/probabilities_weight_smoothing", {Mean}, cross_entropy(0.25)),
      per_reduction("cross_entropy/spatial_weight_ignore", {Mean, None}, cross_entropy()),
      per_reduction("cross_entropy/spatial_probabilities", {Mean}, cross_entropy()),
      per_reduction("nll_loss", {Mean, Sum, None}, nll_loss()),
      per_reduction("nll_loss/weight", {Mean, Sum, None}, nll_loss()),
      per_reduction("nll_loss/ignore_weight", {Mean, Sum, None}, nll_loss()),
      per_reduction("nll_loss/ignore_index2", {Mean}, nll_loss(2)),
      per_reduction("nll_loss/spatial_weight", {Mean}, nll_loss()),
  });
}

std::vector<TorchCase> regression_losses() {
  const TorchLoss bce = [](const ops::Handles& x, Reduction r) {
    return ops::binary_cross_entropy_with_logits(x[0], x[1], optional_input(x, 2), r);
  };
  return concat({
      per_reduction(
          "mse_loss", {Mean, Sum, None},
          [](const ops::Handles& x, Reduction r) { return ops::mse_loss(x[0], x[1], r); }),
      per_reduction("l1_loss", {Mean, Sum, None},
                    [](const ops::Handles& x, Reduction r) { return ops::l1_loss(x[0], x[1], r); }),
      per_reduction("huber_loss", {Mean, Sum, None}, huber(1.0)),
      per_reduction("huber_loss/delta0.5", {Mean}, huber(0.5)),
      per_reduction("bce_with_logits", {Mean, Sum, None}, bce),
      per_reduction("bce_with_logits/pos_weight", {Mean, None}, bce),
      per_reduction("kl_div", {Mean, Sum, None, BatchMean}, kl_div(false)),
      per_reduction("kl_div/log_target", {BatchMean, None}, kl_div(true)),
      per_reduction("kl_div/zero_targets", {Sum}, kl_div(false)),
  });
}

}  // namespace

std::vector<TorchCase> loss_torch_cases() {
  return concat({class_losses(), regression_losses()});
}

}  // namespace ember::test
