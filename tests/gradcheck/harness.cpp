#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "autodiff/rule.h"
#include "ember/autodiff.h"
#include "gradcheck/gradcheck.h"
#include "support/op_values.h"
#include "tensor/dispatch.h"

namespace ember::test {
namespace {

constexpr double kEps = 1e-6;

/// sum(g * f(inputs)) in double, f run on ndarray.
double weighted_sum(const GradCase& c, const std::vector<TensorData>& inputs,
                    const std::vector<double>& g) {
  const TensorData out = ops::into_data(run_forward(c, upload(inputs, Device::ndarray())));
  const std::vector<double> y = out.to_vector<double>();
  if (y.size() != g.size()) throw std::logic_error("[gradcheck] output size changed: " + c.name);
  return std::inner_product(y.begin(), y.end(), g.begin(), 0.0);
}

/// The central difference of weighted_sum along each element of input k.
TensorData numeric_input_grad(const GradCase& c, std::size_t k, const std::vector<double>& g) {
  std::vector<TensorData> inputs = c.inputs;
  const Shape shape = inputs[k].shape();
  std::vector<double> x = inputs[k].to_vector<double>();
  std::vector<double> grad(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double xi = x[i];
    x[i] = xi + kEps;
    inputs[k] = TensorData(x, shape);
    const double up = weighted_sum(c, inputs, g);
    x[i] = xi - kEps;
    inputs[k] = TensorData(x, shape);
    const double down = weighted_sum(c, inputs, g);
    x[i] = xi;
    grad[i] = (up - down) / (2 * kEps);
  }
  return TensorData(grad, shape);
}

std::vector<ir::TensorMeta> metas_of(const ops::Handles& tensors) {
  std::vector<ir::TensorMeta> metas;
  for (const TensorHandle& t : tensors)
    metas.push_back({t.shape(), t.dtype()});
  return metas;
}

}  // namespace

GradCase op_case(std::string name, ir::Op op, std::vector<TensorData> inputs) {
  return {std::move(name), std::move(op), nullptr, std::move(inputs)};
}

GradCase composite_case(std::string name, Forward f, std::vector<TensorData> inputs) {
  return {std::move(name), std::nullopt, std::move(f), std::move(inputs)};
}

ops::Handles upload(const std::vector<TensorData>& inputs, const Device& device,
                    DType float_dtype) {
  ops::Handles handles;
  for (const TensorData& data : inputs) {
    const DType dtype = is_float(data.dtype()) ? float_dtype : data.dtype();
    handles.push_back(
        ops::from_data(data, TensorCreationOptions(device).with_dtype(dtype), kind_of(dtype)));
  }
  return handles;
}

TensorHandle run_forward(const GradCase& c, const ops::Handles& inputs) {
  if (c.composite) return c.composite(inputs);
  return tensor::run(*c.op, inputs).front();
}

TensorData output_gradient(const GradCase& c) {
  const TensorHandle out = run_forward(c, upload(c.inputs, Device::ndarray()));
  return make_values(out.shape(), DType::F64, ValueSpec{-1.0, 1.0}, seed_for(c.name, -1));
}

std::vector<std::optional<TensorData>> numeric_vjp(const GradCase& c, const TensorData& g) {
  const std::vector<double> weights = g.to_vector<double>();
  std::vector<std::optional<TensorData>> grads;
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    if (is_float(c.inputs[k].dtype())) {
      grads.emplace_back(numeric_input_grad(c, k, weights));
    } else {
      grads.emplace_back(std::nullopt);
    }
  }
  return grads;
}

ops::Handles rule_vjp(const GradCase& c, const Device& device, const TensorData& g,
                      DType float_dtype) {
  const autodiff::BackwardRule* rule = autodiff::backward_rule(*c.op);
  if (rule == nullptr) throw std::logic_error("[gradcheck] no backward rule for " + c.name);
  const ops::Handles inputs = upload(c.inputs, device, float_dtype);
  const ops::Handles outputs = tensor::run(*c.op, inputs);
  const std::vector<ir::TensorMeta> metas = metas_of(inputs);
  const ops::Handles kept_inputs = rule->needs_inputs ? inputs : ops::Handles(inputs.size());
  const ops::Handles kept_outputs = rule->needs_outputs ? outputs : ops::Handles(outputs.size());
  ops::Handles output_grads(outputs.size());
  output_grads[0] = upload({g}, device, outputs[0].dtype()).front();
  const autodiff::BackwardArgs args{*c.op, metas, kept_inputs, kept_outputs, output_grads};
  return rule->backward(args);
}

::testing::AssertionResult grad_matches(const TensorHandle& grad, const TensorData& input,
                                        const TensorData& expected, Tolerance tol,
                                        DType float_dtype) {
  if (!grad.defined()) return ::testing::AssertionFailure() << "no gradient";
  if (grad.shape() != input.shape() || grad.dtype() != float_dtype) {
    return ::testing::AssertionFailure() << "gradient " << grad.shape() << " " << grad.dtype()
                                         << " for input " << input.shape() << " " << float_dtype;
  }
  std::string why;
  const TensorData actual = ops::into_data(grad);
  if (actual.approx_equal(expected, tol, &why)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << why << "\n  analytic: " << actual << "\n  expected: " << expected;
}

::testing::AssertionResult api_gradient_matches(const GradCase& c) {
  const TensorData g = output_gradient(c);
  const std::vector<std::optional<TensorData>> expected = numeric_vjp(c, g);
  const Device device = Device::ndarray().autodiff();
  ops::Handles inputs = upload(c.inputs, device);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (expected[k]) inputs[k] = ops::require_grad(inputs[k]);
  }
  const TensorHandle weights = upload({g}, device).front();
  const Gradients grads = ops::backward(ops::sum(ops::mul(run_forward(c, inputs), weights)));
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!expected[k]) continue;
    const std::optional<TensorHandle> grad = grads.get(inputs[k]);
    if (!grad) return ::testing::AssertionFailure() << "no gradient reached input " << k;
    ::testing::AssertionResult match =
        grad_matches(*grad, c.inputs[k], *expected[k], kGradTolerance);
    if (!match) return match << " (input " << k << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ember::test
