// The gradient of softmax and log-softmax along any dim (ir::SoftmaxGrad), the oracle of the fused
// kernels: plain loops over each lane, its sum in double, each result rounded once to its dtype.
// softmax: dx = y (g - sum(g y)); log-softmax: dx = g - exp(y) sum(g).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/ndarray/kernels.h"
#include "backends/ndarray/row_ops.h"
#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {

TensorData run(const ir::SoftmaxGrad& op, Inputs in, Outputs out) {
  const std::vector<double> y = values_of(in[0]);
  const std::vector<double> g = values_of(in[1]);
  const Lanes lanes = Lanes::along(in[0]->shape(), op.softmax.dim);
  std::vector<double> dx(y.size());
  for (int64_t lane = 0; lane < lanes.count(); ++lane) {
    const auto at = [&](int64_t k) { return static_cast<std::size_t>(lanes.offset(lane, k)); };
    double sum = 0.0;
    for (int64_t k = 0; k < lanes.size; ++k)
      sum += op.softmax.log ? g[at(k)] : g[at(k)] * y[at(k)];
    for (int64_t k = 0; k < lanes.size; ++k) {
      dx[at(k)] =
          op.softmax.log ? g[at(k)] - std::exp(y[at(k)]) * sum : y[at(k)] * (g[at(k)] - sum);
    }
  }
  return rounded_to(std::move(dx), out[0]);
}

}  // namespace ember::ndarray
