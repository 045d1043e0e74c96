// The tensor arithmetic the optimizers' updates are made of, named after PyTorch's in-place ops
// their formulas use (add with alpha, addcmul, addcdiv), with the same order of operations.
#pragma once

#include <string>

#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

/// a + alpha · b (torch's a.add(b, alpha=alpha)).
TensorHandle add_scaled(const TensorHandle& a, const TensorHandle& b, double alpha);
/// a + value · b · c (torch's addcmul).
TensorHandle add_scaled_product(const TensorHandle& a, const TensorHandle& b, const TensorHandle& c,
                                double value);
/// a + value · b / c (torch's addcdiv).
TensorHandle add_scaled_quotient(const TensorHandle& a, const TensorHandle& b,
                                 const TensorHandle& c, double value);
/// decay · average + (1 − decay) · x: an exponential moving average.
TensorHandle moving_average(const TensorHandle& average, const TensorHandle& x, double decay);
/// decay · average + (1 − decay) · x²: the moving average of x's squares.
TensorHandle moving_average_of_squares(const TensorHandle& average, const TensorHandle& x,
                                       double decay);

/// The tensor slot of state, first filled with initial (shaped and typed like param).
TensorHandle& tensor_slot(ParamState& state, const std::string& slot, const TensorHandle& param,
                          double initial = 0.0);
/// Adds one to state's counter "step" and returns it (1 on the first update).
double next_step(ParamState& state);

}  // namespace ember::optim::detail
