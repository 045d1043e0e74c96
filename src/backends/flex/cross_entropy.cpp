// cross_entropy per row of logits [M, C] (ir::CrossEntropy) and its gradient on f32 / f64 logits
// with i32 / i64 targets, threads over rows (bf16 and f16 through the widened fallback). The
// forward reads each row once: its maximum, then, the row in cache, the sum of its shifted
// exponentials (and its weighted sum for the smoothing term); the backward writes each row once:
// dx = g ((1 - s) w_t + s W / C) p - g s / C w, and the target's -g (1 - s) w_t. A target out of
// range (not ignore_index) declines to ndarray, which raises its error.
#include <hwy/cache_control.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "backends/flex/copy.h"
#include "backends/flex/elementwise_runs.h"
#include "backends/flex/fetch_toward_l2.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/index_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/simd.h"
#include "backends/flex/simd_norm.h"
#include "backends/flex/thread_pool.h"

namespace ember::flex {
namespace {

/// One row's target, or -1 for ignore_index.
template <typename I>
int64_t target_of(const I* targets, int64_t r, int64_t ignore_index) {
  const auto t = static_cast<int64_t>(targets[r]);
  return t == ignore_index ? -1 : t;
}

/// Whether every target is in [0, classes) or ignore_index.
template <typename I>
bool targets_valid(const I* targets, int64_t rows, int64_t classes, int64_t ignore_index) {
  for (int64_t r = 0; r < rows; ++r) {
    const auto t = static_cast<int64_t>(targets[r]);
    if (t != ignore_index && (t < 0 || t >= classes)) return false;
  }
  return true;
}

/// The logits, targets and class weights, contiguous.
template <typename T, typename I>
struct Rows {
  View logits, targets, weight;
  int64_t rows, classes;
  const T* w = nullptr;
  double weight_sum;  ///< W: the sum of the class weights (C without them)

  Rows(const ir::CrossEntropy& op, Views in)
      : logits(contiguous(in[0])),
        targets(contiguous(in[1])),
        rows(in[0].shape[0]),
        classes(in[0].shape[1]),
        weight_sum(static_cast<double>(classes)) {
    if (op.weight) {
      weight = contiguous(in[2]);
      w = weight.data<T>();
      weight_sum = 0.0;
      for (int64_t c = 0; c < classes; ++c)
        weight_sum += static_cast<double>(w[c]);
    }
  }
  const T* row(int64_t r) const { return logits.data<T>() + r * classes; }
  const I* target_data() const { return targets.data<I>(); }
  double weight_of(int64_t c) const { return w != nullptr ? static_cast<double>(w[c]) : 1.0; }
};

/// Rows per chunk of the pool: about kElementGrain values.
int64_t rows_per_chunk(int64_t classes) {
  return std::max<int64_t>(1, kElementGrain / std::max<int64_t>(1, classes));
}

template <typename T, typename I>
std::optional<std::vector<View>> forward(const ir::CrossEntropy& op, Views in, Outputs out) {
  const Rows<T, I> p(op, in);
  if (!targets_valid(p.target_data(), p.rows, p.classes, op.ignore_index)) return std::nullopt;
  OutputTensor loss(out[0]);
  OutputTensor lse(out[1]);
  T* losses = loss.data<T>();
  T* lses = lse.data<T>();
  const double s = op.label_smoothing;
  const auto per_class = s / static_cast<double>(p.classes);
  parallel_for(p.rows, rows_per_chunk(p.classes), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* row = p.row(r);
      const T max = simd::extreme(row, p.classes, true);
      // The next row comes from memory while this one's exponentials compute.
      if (r + 1 < end) fetch_toward_l2(p.row(r + 1), p.classes);
      // A row of -inf has the log-sum-exp -inf (the reference's), not exp(-inf + inf)'s NaN.
      const double l =
          max == -std::numeric_limits<T>::infinity()
              ? -std::numeric_limits<double>::infinity()
              : static_cast<double>(max) + std::log(simd::exp_shifted_sum(row, max, p.classes));
      lses[r] = static_cast<T>(l);
      const int64_t t = target_of(p.target_data(), r, op.ignore_index);
      if (t < 0) {
        losses[r] = T{0};
        continue;
      }
      double value = (1.0 - s) * p.weight_of(t) * (l - static_cast<double>(row[t]));
      if (s != 0.0) {
        const double weighted =
            p.w != nullptr ? simd::dot(p.w, row, p.classes) : simd::sum(row, p.classes);
        value += per_class * (p.weight_sum * l - weighted);
      }
      losses[r] = static_cast<T>(value);
    }
  });
  std::vector<View> results{std::move(loss).view()};
  results.push_back(std::move(lse).view());
  return results;
}

template <typename T, typename I>
std::optional<View> backward(const ir::CrossEntropyGrad& op, Views in, Outputs out) {
  const ir::CrossEntropy& loss = op.loss;
  const Rows<T, I> p(loss, in);
  if (!targets_valid(p.target_data(), p.rows, p.classes, loss.ignore_index)) return std::nullopt;
  const View lse = contiguous(in[in.size() - 2]);
  const View grad = contiguous(in[in.size() - 1]);
  OutputTensor dx(out[0]);
  T* dxs = dx.data<T>();
  const double s = loss.label_smoothing;
  const auto per_class = s / static_cast<double>(p.classes);
  // Streaming stores where the logits and their gradient are larger than the caches (softmax's
  // rule), so that no line of the gradient is read before it is written.
  const bool stream =
      2 * p.logits.num_elements() * static_cast<int64_t>(sizeof(T)) > kStreamingBytes;
  parallel_for(p.rows, rows_per_chunk(p.classes), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      T* d = dxs + r * p.classes;
      const int64_t t = target_of(p.target_data(), r, loss.ignore_index);
      if (t < 0) {
        std::fill(d, d + p.classes, T{0});
        continue;
      }
      if (r + 1 < end) fetch_toward_l2(p.row(r + 1), p.classes);
      const auto g = static_cast<double>(grad.data<T>()[r]);
      const double picked = (1.0 - s) * p.weight_of(t);
      const double alpha = g * (picked + per_class * p.weight_sum);
      simd::scaled_exp_row(p.row(r), lse.data<T>()[r], static_cast<T>(alpha), p.w,
                           static_cast<T>(g * per_class), d, p.classes, stream);
      d[t] -= static_cast<T>(g * picked);
    }
    if (stream) hwy::FlushStream();
  });
  return std::move(dx).view();
}

}  // namespace

std::optional<std::vector<View>> run(const ir::CrossEntropy& op, Views in, Outputs out) {
  if (!is_simd_float(in[0].dtype) || !is_flex_index(in[1].dtype) || in[0].num_elements() == 0)
    return std::nullopt;
  return visit_simd_float(in[0].dtype, [&]<typename T>() {
    return visit_flex_index(in[1].dtype, [&]<typename I>() -> std::optional<std::vector<View>> {
      return forward<T, I>(op, in, out);
    });
  });
}

std::optional<View> run(const ir::CrossEntropyGrad& op, Views in, Outputs out) {
  if (!is_simd_float(in[0].dtype) || !is_flex_index(in[1].dtype) || in[0].num_elements() == 0)
    return std::nullopt;
  return visit_simd_float(in[0].dtype, [&]<typename T>() {
    return visit_flex_index(in[1].dtype, [&]<typename I>() -> std::optional<View> {
      return backward<T, I>(op, in, out);
    });
  });
}

}  // namespace ember::flex
