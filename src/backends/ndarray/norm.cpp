// layer_norm and rms_norm over the last dim (ir::LayerNorm) and their gradient, the oracle of the
// fused kernels: plain loops in double, each result rounded once to its dtype. The gradient is
// the textbook one, with xhat = (x - mean) * rstd (x * rstd for rms) and g = grad_y * weight:
// dx = rstd (g - mean(g) - xhat mean(g xhat)) (no mean(g) term for rms), dweight = sum over rows
// of grad_y xhat, dbias = sum over rows of grad_y.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/ndarray/kernels.h"
#include "backends/ndarray/row_ops.h"

namespace ember::ndarray {
namespace {

/// The affine parameters (empty when the op has none: weight 1, bias 0).
struct Affine {
  std::vector<double> weight, bias;

  Affine(const ir::LayerNorm& op, Inputs in) {
    std::size_t next = 1;
    if (op.weight) weight = values_of(in[next++]);
    if (op.bias) bias = values_of(in[next]);
  }
  double w(int64_t i) const { return weight.empty() ? 1.0 : weight[static_cast<std::size_t>(i)]; }
  double b(int64_t i) const { return bias.empty() ? 0.0 : bias[static_cast<std::size_t>(i)]; }
};

/// A row's mean (0 for rms) and 1 / sqrt(variance + eps) (of the mean square for rms).
struct RowStatistics {
  double mean = 0.0;
  double rstd = 0.0;
};

RowStatistics statistics(const ir::LayerNorm& op, const double* x, int64_t n) {
  double sum = 0.0;
  for (int64_t i = 0; i < n && !op.rms; ++i)
    sum += x[i];
  RowStatistics s;
  s.mean = op.rms ? 0.0 : sum / static_cast<double>(n);
  double squares = 0.0;
  for (int64_t i = 0; i < n; ++i)
    squares += (x[i] - s.mean) * (x[i] - s.mean);
  s.rstd = 1.0 / std::sqrt(squares / static_cast<double>(n) + op.eps);
  return s;
}

}  // namespace

std::vector<TensorData> run(const ir::LayerNorm& op, Inputs in, Outputs out) {
  const std::vector<double> x = values_of(in[0]);
  const Affine affine(op, in);
  const auto [rows, n] = row_extents(*in[0]);
  std::vector<double> y(x.size()), mean, rstd;
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = x.data() + r * n;
    const RowStatistics s = statistics(op, row, n);
    for (int64_t i = 0; i < n; ++i)
      y[static_cast<std::size_t>(r * n + i)] =
          (row[i] - s.mean) * s.rstd * affine.w(i) + affine.b(i);
    mean.push_back(s.mean);
    rstd.push_back(s.rstd);
  }
  std::vector<TensorData> results;
  results.push_back(rounded_to(std::move(y), out[0]));
  if (!op.rms) results.push_back(rounded_to(std::move(mean), out[1]));
  results.push_back(rounded_to(std::move(rstd), out.back()));
  return results;
}

std::vector<TensorData> run(const ir::LayerNormGrad& op, Inputs in, Outputs out) {
  const ir::LayerNorm& norm = op.norm;
  const std::vector<double> x = values_of(in[0]);
  const std::vector<double> weight = norm.weight ? values_of(in[1]) : std::vector<double>{};
  const std::size_t at = norm.weight ? 2 : 1;
  const std::vector<double> mean = norm.rms ? std::vector<double>{} : values_of(in[at]);
  const std::vector<double> rstd = values_of(in[norm.rms ? at : at + 1]);
  const std::vector<double> dy = values_of(in.back());
  const auto [rows, n] = row_extents(*in[0]);
  std::vector<double> dx(x.size()), dweight(static_cast<std::size_t>(n)),
      dbias(static_cast<std::size_t>(n));
  std::vector<double> xhat(static_cast<std::size_t>(n)), g(static_cast<std::size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    const auto row = static_cast<std::size_t>(r);
    const double m = norm.rms ? 0.0 : mean[row];
    double g_sum = 0.0, g_xhat_sum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(r * n + i);
      const auto c = static_cast<std::size_t>(i);
      xhat[c] = (x[k] - m) * rstd[row];
      g[c] = dy[k] * (weight.empty() ? 1.0 : weight[c]);
      g_sum += g[c];
      g_xhat_sum += g[c] * xhat[c];
      dweight[c] += dy[k] * xhat[c];
      dbias[c] += dy[k];
    }
    const double g_mean = norm.rms ? 0.0 : g_sum / static_cast<double>(n);
    const double g_xhat_mean = g_xhat_sum / static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) {
      const auto c = static_cast<std::size_t>(i);
      dx[static_cast<std::size_t>(r * n + i)] = rstd[row] * (g[c] - g_mean - xhat[c] * g_xhat_mean);
    }
  }
  std::vector<TensorData> results;
  results.push_back(rounded_to(std::move(dx), out[0]));
  if (norm.weight) results.push_back(rounded_to(std::move(dweight), out[1]));
  if (norm.bias) results.push_back(rounded_to(std::move(dbias), out.back()));
  return results;
}

}  // namespace ember::ndarray
