// Reductions along one dim (kept with size 1) or over the whole tensor (shape [1]).
#include <cmath>
#include <limits>
#include <vector>

#include "backends/ndarray/arithmetic.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/index_data.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {
namespace {

using ir::ReduceOp;

/// The sum (or product) of lane in accumulator_t<T>.
template <typename T>
accumulator_t<T> accumulate(const Lane<T>& lane, bool product) {
  Accumulator<T> acc(product);
  for (int64_t k = 0; k < lane.size(); ++k)
    acc.add(lane[k]);
  return acc.total();
}

[[noreturn]] void throw_empty(const ir::Reduce& op) {
  throw InvalidArgument("[" + ir::name(op) + "] cannot reduce an empty dim");
}

/// Integer mean: the wrapped sum divided by n, truncating, in 64 bits so that n fits.
template <typename I>
I integer_mean(const ir::Reduce& op, const Lane<I>& lane) {
  if (lane.empty()) throw_empty(op);
  const I sum = accumulate(lane, false);
  if constexpr (std::is_signed_v<I>) {
    return static_cast<I>(static_cast<int64_t>(sum) / lane.size());
  } else {
    return static_cast<I>(static_cast<uint64_t>(sum) / static_cast<uint64_t>(lane.size()));
  }
}

/// sum((x - mean)^2) / (n - correction) in double; NaN when n - correction <= 0 (PyTorch).
template <typename T>
double variance(const Lane<T>& lane, int64_t correction) {
  const int64_t n = lane.size();
  if (n - correction <= 0) return std::numeric_limits<double>::quiet_NaN();
  const double mean = accumulate(lane, false) / static_cast<double>(n);
  double squares = 0.0;
  for (int64_t k = 0; k < n; ++k) {
    const double d = static_cast<double>(load(lane[k])) - mean;
    squares += d * d;
  }
  return squares / static_cast<double>(n - correction);
}

/// Position of the first maximum (or minimum); a NaN counts as the extreme (PyTorch), so the
/// first NaN wins.
template <typename T>
int64_t extreme_index(const ir::Reduce& op, const Lane<T>& lane, bool maximum) {
  if (lane.empty()) throw_empty(op);
  int64_t best = 0;
  for (int64_t k = 1; k < lane.size() && !is_nan(lane[best]); ++k) {
    const auto v = load(lane[k]);
    const auto b = load(lane[best]);
    if (is_nan(lane[k]) || (maximum ? v > b : v < b)) best = k;
  }
  return best;
}

/// Sum, Mean, Prod, Max, Min, Var: one element of x's dtype.
template <typename T>
T reduce_to_value(const ir::Reduce& op, const Lane<T>& lane) {
  if (op.op == ReduceOp::Max || op.op == ReduceOp::Min) {
    return lane[extreme_index(op, lane, op.op == ReduceOp::Max)];
  }
  if constexpr (is_float_v<T>) {
    switch (op.op) {
      case ReduceOp::Sum:
        return detail::convert_element<T>(accumulate(lane, false));
      case ReduceOp::Prod:
        return detail::convert_element<T>(accumulate(lane, true));
      case ReduceOp::Mean:
        return detail::convert_element<T>(accumulate(lane, false) /
                                          static_cast<double>(lane.size()));
      case ReduceOp::Var:
        return detail::convert_element<T>(variance(lane, op.correction));
      case ReduceOp::Max:
      case ReduceOp::Min:
      case ReduceOp::ArgMax:
      case ReduceOp::ArgMin:
      case ReduceOp::Any:
      case ReduceOp::All:
        break;
    }
  } else if constexpr (is_int_v<T>) {
    switch (op.op) {
      case ReduceOp::Sum:
        return accumulate(lane, false);
      case ReduceOp::Prod:
        return accumulate(lane, true);
      case ReduceOp::Mean:
        return integer_mean(op, lane);
      case ReduceOp::Max:
      case ReduceOp::Min:
      case ReduceOp::ArgMax:
      case ReduceOp::ArgMin:
      case ReduceOp::Var:
      case ReduceOp::Any:
      case ReduceOp::All:
        break;
    }
  }
  throw_unsupported(op, dtype_of<T>());
}

/// Any or All: nonzero is true.
template <typename T>
bool reduce_to_truth(const ir::Reduce& op, const Lane<T>& lane) {
  const bool any = op.op == ReduceOp::Any;
  for (int64_t k = 0; k < lane.size(); ++k) {
    if (is_nonzero(lane[k]) == any) return any;
  }
  return !any;
}

bool is_arg(ReduceOp op) {
  return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
}
bool is_truth(ReduceOp op) {
  return op == ReduceOp::Any || op == ReduceOp::All;
}

/// Writes reduce(lane) for every lane the op reduces into out[lane] (the result's layout: the
/// reduced dim has size 1).
template <typename T, typename Out, typename F>
void reduce_lanes(const ir::Reduce& op, const TensorData& x, std::span<Out> out, F reduce) {
  const Lanes lanes = op.dim ? Lanes::along(x.shape(), *op.dim) : Lanes::whole(x.shape());
  for (int64_t lane = 0; lane < lanes.count(); ++lane) {
    out[lane] = reduce(Lane<T>(x.as<T>(), lanes, lane));
  }
}

}  // namespace

TensorData run(const ir::Reduce& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  TensorData result = zeros_like(out[0]);
  visit_dtype(x.dtype(), [&]<typename T>() {
    if (is_arg(op.op)) {
      std::vector<int64_t> positions(static_cast<std::size_t>(out[0].shape.num_elements()));
      reduce_lanes<T>(op, x, std::span<int64_t>(positions), [&](const Lane<T>& lane) {
        return extreme_index(op, lane, op.op == ReduceOp::ArgMax);
      });
      result = index_data(positions, out[0]);
    } else if (is_truth(op.op)) {
      reduce_lanes<T>(op, x, result.as_mut<bool>(),
                      [&](const Lane<T>& lane) { return reduce_to_truth(op, lane); });
    } else {
      reduce_lanes<T>(op, x, result.as_mut<T>(),
                      [&](const Lane<T>& lane) { return reduce_to_value(op, lane); });
    }
  });
  return result;
}

}  // namespace ember::ndarray
