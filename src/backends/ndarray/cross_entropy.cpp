// cross_entropy per row of logits [M, C] (ir::CrossEntropy) and its gradient, the oracle of the
// fused kernels: plain loops in double, each result rounded once to its dtype. With p = exp(x -
// lse), W = sum_c w_c and s the label smoothing, the gradient of row i's loss is
// (1 - s) w[t_i] (p - onehot(t_i)) + s / C (W p - w), 0 for an ignored row.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backends/ndarray/kernels.h"
#include "backends/ndarray/row_ops.h"

namespace ember::ndarray {
namespace {

/// The logits, targets and class weights of a CrossEntropy (or its gradient's first inputs).
struct Problem {
  std::vector<double> x;
  std::vector<int64_t> targets;
  std::vector<double> weight;  ///< C ones without class weights
  int64_t rows = 0, classes = 0;

  Problem(const ir::CrossEntropy& op, Inputs in)
      : x(values_of(in[0])), targets(in[1]->to_vector<int64_t>()) {
    rows = in[0]->shape()[0];
    classes = in[0]->shape()[1];
    weight =
        op.weight ? values_of(in[2]) : std::vector<double>(static_cast<std::size_t>(classes), 1.0);
  }

  const double* row(int64_t r) const { return x.data() + r * classes; }

  /// Row r's target, or -1 when it is ignore_index; any other value outside [0, C) throws.
  int64_t target(const ir::CrossEntropy& op, int64_t r) const {
    const int64_t t = targets[static_cast<std::size_t>(r)];
    if (t == op.ignore_index) return -1;
    if (t < 0 || t >= classes) {
      throw InvalidArgument("[cross_entropy] target " + std::to_string(t) + " is outside [0, " +
                            std::to_string(classes) + ") and is not ignore_index " +
                            std::to_string(op.ignore_index));
    }
    return t;
  }
};

/// log sum_c exp(row[c]), from the row's maximum: -inf for a row of -inf, NaN for a row holding
/// NaN or +inf (as the composite's log_softmax gives).
double log_sum_exp(const double* row, int64_t n) {
  const double max = *std::max_element(row, row + n);
  if (max == -std::numeric_limits<double>::infinity()) return max;
  double sum = 0.0;
  for (int64_t c = 0; c < n; ++c)
    sum += std::exp(row[c] - max);
  return max + std::log(sum);
}

}  // namespace

std::vector<TensorData> run(const ir::CrossEntropy& op, Inputs in, Outputs out) {
  const Problem p(op, in);
  const double s = op.label_smoothing;
  std::vector<double> loss(static_cast<std::size_t>(p.rows)), lse(loss.size());
  for (int64_t r = 0; r < p.rows; ++r) {
    const double* row = p.row(r);
    const double l =
        p.classes == 0 ? -std::numeric_limits<double>::infinity() : log_sum_exp(row, p.classes);
    lse[static_cast<std::size_t>(r)] = l;
    const int64_t t = p.target(op, r);
    if (t < 0) continue;
    double smooth = 0.0;
    for (int64_t c = 0; c < p.classes && s != 0.0; ++c)
      smooth += p.weight[static_cast<std::size_t>(c)] * (l - row[c]);
    loss[static_cast<std::size_t>(r)] =
        (1.0 - s) * p.weight[static_cast<std::size_t>(t)] * (l - row[t]) +
        (s == 0.0 ? 0.0 : s / static_cast<double>(p.classes) * smooth);
  }
  std::vector<TensorData> results;
  results.push_back(rounded_to(std::move(loss), out[0]));
  results.push_back(rounded_to(std::move(lse), out[1]));
  return results;
}

TensorData run(const ir::CrossEntropyGrad& op, Inputs in, Outputs out) {
  const Problem p(op.loss, in);
  const std::size_t at = op.loss.weight ? 3 : 2;
  const std::vector<double> lse = values_of(in[at]);
  const std::vector<double> grad = values_of(in[at + 1]);
  const double s = op.loss.label_smoothing;
  double weight_sum = 0.0;
  for (const double w : p.weight)
    weight_sum += w;
  std::vector<double> dx(p.x.size());
  for (int64_t r = 0; r < p.rows; ++r) {
    const int64_t t = p.target(op.loss, r);
    if (t < 0) continue;
    const auto row = static_cast<std::size_t>(r);
    const double picked = (1.0 - s) * p.weight[static_cast<std::size_t>(t)];
    const double per_class = s / static_cast<double>(p.classes);
    for (int64_t c = 0; c < p.classes; ++c) {
      const double prob = std::exp(p.row(r)[c] - lse[row]);
      const double w = p.weight[static_cast<std::size_t>(c)];
      const double d = picked * (prob - (c == t ? 1.0 : 0.0)) + per_class * (weight_sum * prob - w);
      dx[static_cast<std::size_t>(r * p.classes + c)] = grad[row] * d;
    }
  }
  return rounded_to(std::move(dx), out[0]);
}

}  // namespace ember::ndarray
