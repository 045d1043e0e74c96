// Running sum, product, maximum and minimum along one dim.
#include <span>

#include "backends/ndarray/arithmetic.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {
namespace {

using ir::CumulativeOp;

/// Running sum or product, each prefix rounded once to T.
template <typename T>
void running_total(const Lane<T>& lane, bool product, std::span<T> out, const Lanes& lanes,
                   int64_t lane_index) {
  Accumulator<T> acc(product);
  for (int64_t k = 0; k < lane.size(); ++k) {
    acc.add(lane[k]);
    out[lanes.offset(lane_index, k)] = detail::convert_element<T>(acc.total());
  }
}

/// Running maximum or minimum; once a NaN is seen it stays (NaN propagates).
template <typename T>
void running_extreme(const Lane<T>& lane, bool maximum, std::span<T> out, const Lanes& lanes,
                     int64_t lane_index) {
  T best{};
  for (int64_t k = 0; k < lane.size(); ++k) {
    const T v = lane[k];
    const bool better = maximum ? load(v) > load(best) : load(v) < load(best);
    if (k == 0 || is_nan(v) || (!is_nan(best) && better)) best = v;
    out[lanes.offset(lane_index, k)] = best;
  }
}

}  // namespace

TensorData run(const ir::Cumulative& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const Lanes lanes = Lanes::along(x.shape(), op.dim);
  TensorData result = zeros_like(out[0]);
  visit_dtype(x.dtype(), [&]<typename T>() {
    if constexpr (is_bool_v<T>) {
      throw_unsupported(op, DType::Bool);
    } else {
      auto dst = result.as_mut<T>();
      for (int64_t lane = 0; lane < lanes.count(); ++lane) {
        const Lane<T> values(x.as<T>(), lanes, lane);
        if (op.op == CumulativeOp::Sum || op.op == CumulativeOp::Prod) {
          running_total(values, op.op == CumulativeOp::Prod, dst, lanes, lane);
        } else {
          running_extreme(values, op.op == CumulativeOp::Max, dst, lanes, lane);
        }
      }
    }
  });
  return result;
}

}  // namespace ember::ndarray
