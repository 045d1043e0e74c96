// Scaled dot-product attention and its gradient, the oracle of the fused kernels: plain loops,
// every sum in double (each value rounded once to its dtype), the softmax from the row's maximum.
// The backward recomputes each row's probabilities from the forward's log-sum-exp, as the fused
// kernels do: P = exp(s - lse), dS = P (dO v^T - rowsum(dO out)).
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

/// One attention problem over T: q [B, L, E], k [B, S, E], v [B, S, Ev] (batch dims flattened)
/// and the mask's element for each score (its offsets broadcast to [B, L, S]).
template <typename T>
struct Problem {
  std::span<const T> q, k, v;
  const TensorData* mask = nullptr;
  std::vector<int64_t> mask_at;
  int64_t batches = 0, l = 0, s = 0, e = 0, ev = 0;
  double scale = 1.0;
  bool causal = false;

  Problem(const ir::Attention& op, Inputs in, bool has_mask)
      : q(in[0]->as<T>()),
        k(in[1]->as<T>()),
        v(in[2]->as<T>()),
        scale(op.scale),
        causal(op.causal) {
    const Shape& qs = in[0]->shape();
    const std::size_t rank = qs.rank();
    l = qs[rank - 2];
    e = qs[rank - 1];
    s = in[1]->shape()[rank - 2];
    ev = in[2]->shape()[rank - 1];
    batches = 1;
    for (std::size_t d = 0; d + 2 < rank; ++d)
      batches *= qs[d];
    if (has_mask) {
      mask = in[3];
      std::vector<int64_t> scores(qs.dims().begin(), qs.dims().end() - 1);
      scores.push_back(s);
      mask_at = broadcast_offsets(mask->shape(), Shape(std::move(scores)));
    }
  }

  static double at(std::span<const T> x, int64_t i) { return static_cast<double>(load(x[i])); }

  /// The score of query i and key j of batch b: -inf where masked out.
  double score(int64_t b, int64_t i, int64_t j) const {
    if (causal && j > i) return kMinusInfinity;
    double added = 0.0;
    if (mask != nullptr) {
      const int64_t m = mask_at[static_cast<std::size_t>((b * l + i) * s + j)];
      if (mask->dtype() == DType::Bool) {
        if (!mask->as<bool>()[m]) return kMinusInfinity;
      } else {
        added = at(mask->as<T>(), m);
      }
    }
    double dot = 0.0;
    for (int64_t c = 0; c < e; ++c)
      dot += at(q, (b * l + i) * e + c) * at(k, (b * s + j) * e + c);
    return scale * dot + added;
  }

  /// The scores of query i of batch b.
  std::vector<double> row(int64_t b, int64_t i) const {
    std::vector<double> scores(static_cast<std::size_t>(s));
    for (int64_t j = 0; j < s; ++j)
      scores[j] = score(b, i, j);
    return scores;
  }
};

/// log(sum(exp(scores))) from the maximum; -inf when every score is (nothing to attend).
double log_sum_exp(const std::vector<double>& scores) {
  double max = kMinusInfinity;
  for (const double x : scores)
    max = std::isnan(x) || x > max ? x : max;
  if (max == kMinusInfinity || std::isnan(max)) return max;
  double sum = 0.0;
  for (const double x : scores)
    sum += std::exp(x - max);
  return max + std::log(sum);
}

/// lse (f32, or f64 for f64 inputs) at i.
void set_lse(TensorData& lse, int64_t i, double value) {
  if (lse.dtype() == DType::F64) {
    lse.as_mut<double>()[i] = value;
  } else {
    lse.as_mut<float>()[i] = static_cast<float>(value);
  }
}

double lse_at(const TensorData& lse, int64_t i) {
  return lse.dtype() == DType::F64 ? lse.as<double>()[i] : lse.as<float>()[i];
}

template <typename T>
std::vector<TensorData> forward(const ir::Attention& op, Inputs in, Outputs out, bool has_mask) {
  const Problem<T> p(op, in, has_mask);
  TensorData result = zeros_like(out[0]);
  TensorData lse = zeros_like(out[1]);
  auto dst = result.as_mut<T>();

  for (int64_t b = 0; b < p.batches; ++b) {
    for (int64_t i = 0; i < p.l; ++i) {
      const std::vector<double> scores = p.row(b, i);
      const double total = log_sum_exp(scores);
      set_lse(lse, b * p.l + i, total);
      for (int64_t c = 0; c < p.ev; ++c) {
        // A row with nothing to attend is 0 / 0, as the composite's softmax (no key at all: an
        // empty sum, as the composite's product).
        double sum = total == kMinusInfinity && p.s > 0 ? std::nan("") : 0.0;
        for (int64_t j = 0; j < p.s; ++j)
          sum += std::exp(scores[j] - total) * Problem<T>::at(p.v, (b * p.s + j) * p.ev + c);
        dst[(b * p.l + i) * p.ev + c] = detail::convert_element<T>(sum);
      }
    }
  }
  return {std::move(result), std::move(lse)};
}

/// The gradients of one batch b, added into dq, dk, dv (double, [B, L, E] etc.).
template <typename T>
struct Backward {
  const Problem<T>& p;
  std::span<const T> out, grad;
  const TensorData& lse;
  std::vector<double> dq, dk, dv;

  explicit Backward(const Problem<T>& problem, Inputs in, std::size_t at)
      : p(problem),
        out(in[at]->as<T>()),
        grad(in[at + 2]->as<T>()),
        lse(*in[at + 1]),
        dq(static_cast<std::size_t>(p.batches * p.l * p.e)),
        dk(static_cast<std::size_t>(p.batches * p.s * p.e)),
        dv(static_cast<std::size_t>(p.batches * p.s * p.ev)) {}

  double grad_at(int64_t b, int64_t i, int64_t c) const {
    return Problem<T>::at(grad, (b * p.l + i) * p.ev + c);
  }

  /// rowsum(dO * out) of query i.
  double delta(int64_t b, int64_t i) const {
    double sum = 0.0;
    for (int64_t c = 0; c < p.ev; ++c)
      sum += grad_at(b, i, c) * Problem<T>::at(out, (b * p.l + i) * p.ev + c);
    return sum;
  }

  void add_pair(int64_t b, int64_t i, int64_t j, double prob, double d) {
    double dprob = 0.0;
    for (int64_t c = 0; c < p.ev; ++c) {
      dprob += grad_at(b, i, c) * Problem<T>::at(p.v, (b * p.s + j) * p.ev + c);
      dv[(b * p.s + j) * p.ev + c] += prob * grad_at(b, i, c);
    }
    const double ds = p.scale * prob * (dprob - d);
    for (int64_t c = 0; c < p.e; ++c) {
      dq[(b * p.l + i) * p.e + c] += ds * Problem<T>::at(p.k, (b * p.s + j) * p.e + c);
      dk[(b * p.s + j) * p.e + c] += ds * Problem<T>::at(p.q, (b * p.l + i) * p.e + c);
    }
  }

  void run() {
    for (int64_t b = 0; b < p.batches; ++b) {
      for (int64_t i = 0; i < p.l; ++i) {
        const double total = lse_at(lse, b * p.l + i);
        const double d = delta(b, i);
        for (int64_t j = 0; j < p.s; ++j)
          add_pair(b, i, j, std::exp(p.score(b, i, j) - total), d);
      }
    }
  }
};

TensorData rounded(const std::vector<double>& values, const ir::TensorMeta& meta) {
  TensorData result = zeros_like(meta);
  visit_dtype(meta.dtype, [&]<typename T>() {
    if constexpr (is_float_v<T>) {
      auto dst = result.as_mut<T>();
      for (std::size_t i = 0; i < values.size(); ++i)
        dst[i] = detail::convert_element<T>(values[i]);
    }
  });
  return result;
}

}  // namespace

std::vector<TensorData> run(const ir::Attention& op, Inputs in, Outputs out) {
  std::vector<TensorData> results;
  visit_dtype(in[0]->dtype(), [&]<typename T>() {
    if constexpr (is_float_v<T>) {
      results = forward<T>(op, in, out, in.size() == 4);
    } else {
      throw_unsupported(op, dtype_of<T>());
    }
  });
  return results;
}

std::vector<TensorData> run(const ir::AttentionGrad& op, Inputs in, Outputs out) {
  std::vector<TensorData> results;
  visit_dtype(in[0]->dtype(), [&]<typename T>() {
    if constexpr (is_float_v<T>) {
      const bool has_mask = in.size() == 7;
      const Problem<T> problem(op.attention, in, has_mask);
      Backward<T> backward(problem, in, has_mask ? 4 : 3);
      backward.run();
      results.push_back(rounded(backward.dq, out[0]));
      results.push_back(rounded(backward.dk, out[1]));
      results.push_back(rounded(backward.dv, out[2]));
    } else {
      throw_unsupported(op, dtype_of<T>());
    }
  });
  return results;
}

}  // namespace ember::ndarray
