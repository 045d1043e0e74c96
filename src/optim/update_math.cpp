#include "update_math.h"

#include "ember/tensor_ops.h"

namespace ember::optim::detail {

TensorHandle add_scaled(const TensorHandle& a, const TensorHandle& b, double alpha) {
  return ops::add(a, ops::mul_scalar(b, alpha));
}

TensorHandle add_scaled_product(const TensorHandle& a, const TensorHandle& b, const TensorHandle& c,
                                double value) {
  return ops::add(a, ops::mul(ops::mul_scalar(b, value), c));
}

TensorHandle add_scaled_quotient(const TensorHandle& a, const TensorHandle& b,
                                 const TensorHandle& c, double value) {
  return ops::add(a, ops::div(ops::mul_scalar(b, value), c));
}

TensorHandle moving_average(const TensorHandle& average, const TensorHandle& x, double decay) {
  return add_scaled(ops::mul_scalar(average, decay), x, 1.0 - decay);
}

TensorHandle moving_average_of_squares(const TensorHandle& average, const TensorHandle& x,
                                       double decay) {
  return add_scaled_product(ops::mul_scalar(average, decay), x, x, 1.0 - decay);
}

TensorHandle& tensor_slot(ParamState& state, const std::string& slot, const TensorHandle& param,
                          double initial) {
  auto it = state.tensors.find(slot);
  if (it == state.tensors.end())
    it = state.tensors.emplace(slot, ops::full_like(param, initial)).first;
  return it->second;
}

double next_step(ParamState& state) {
  return ++state.scalars["step"];
}

}  // namespace ember::optim::detail
