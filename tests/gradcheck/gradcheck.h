// The gradient-check suite: ONE table of cases (an op or a composite of ops, with inputs away
// from the points where it is not differentiable) and a harness that compares the analytic
// vector-Jacobian product g^T J with central finite differences of sum(g * f(x)), in f64 on
// ndarray. The table drives three checks: through each backward rule directly
// (rule_gradcheck_test), end to end through require_grad/backward (api_gradcheck_test), and the
// same rules on every enumerated device against ndarray (device_gradcheck_test).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/device.h"
#include "ember/tensor_data.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"

namespace ember::test {

/// f(inputs) → the tensor whose gradient is checked.
using Forward = std::function<TensorHandle(const ops::Handles& inputs)>;

struct GradCase {
  std::string name;
  /// The op under test, run through dispatch; empty for a composite checked only end to end.
  std::optional<ir::Op> op;
  /// The composite's function (unset for an op case).
  Forward composite;
  /// f64 inputs get gradients; Int and Bool inputs (indices, masks) get none.
  std::vector<TensorData> inputs;
};

/// A case for one ir op (its first output is checked).
GradCase op_case(std::string name, ir::Op op, std::vector<TensorData> inputs);
/// A case for a composite of public ops.
GradCase composite_case(std::string name, Forward f, std::vector<TensorData> inputs);
/// The lists one after the other.
std::vector<GradCase> concat(std::initializer_list<std::vector<GradCase>> lists);

/// Every case, in a fixed order; the families' lists concatenated.
const std::vector<GradCase>& grad_cases();
std::vector<GradCase> unary_grad_cases();
std::vector<GradCase> binary_grad_cases();
std::vector<GradCase> reduce_grad_cases();
std::vector<GradCase> layout_grad_cases();
std::vector<GradCase> indexing_grad_cases();
std::vector<GradCase> composite_grad_cases();
std::vector<GradCase> conv_grad_cases();
std::vector<GradCase> pool_grad_cases();
std::vector<GradCase> interpolate_grad_cases();
std::vector<GradCase> attention_grad_cases();
std::vector<GradCase> row_op_grad_cases();
/// The names of the op cases / of all cases, for parameterized tests.
/// The names of cases (only those of one ir op when ops_only), for parameterized tests.
std::vector<std::string> case_names(const std::vector<GradCase>& cases = grad_cases(),
                                    bool ops_only = false);
/// The case of cases named name; std::logic_error when there is none.
const GradCase& find_case(std::string_view name, const std::vector<GradCase>& cases = grad_cases());

// ---- inputs (f64 unless said otherwise; random values are seeded by tag) ----------------------
/// Uniform reals in [lo, hi].
TensorData reals(std::string_view tag, const Shape& shape, double lo = -2.0, double hi = 2.0);
/// Reals in [0.5, 2]: for log, sqrt, recip, pow bases.
TensorData positives(std::string_view tag, const Shape& shape);
/// lo + step * (a permutation of 0..n-1): no ties, for max, min, sort, cummax.
TensorData distinct(std::string_view tag, const Shape& shape, double lo = -2.0, double step = 0.37);
TensorData f64(const std::vector<double>& values, const Shape& shape);
TensorData i64(const std::vector<int64_t>& values, const Shape& shape);
/// 0 / 1 values as a Bool tensor.
TensorData mask(const std::vector<double>& values, const Shape& shape);

// ---- harness ----------------------------------------------------------------------------------
/// The inputs uploaded to device; float inputs converted to float_dtype.
ops::Handles upload(const std::vector<TensorData>& inputs, const Device& device,
                    DType float_dtype = DType::F64);
/// The case's function on inputs (the op's first output, or the composite's result).
TensorHandle run_forward(const GradCase& c, const ops::Handles& inputs);
/// A random output gradient g (seeded by the case's name), shaped like the case's output.
TensorData output_gradient(const GradCase& c);
/// d/dx sum(g * f(x)) by central differences (eps 1e-6) for each f64 input; nullopt for the
/// others.
std::vector<std::optional<TensorData>> numeric_vjp(const GradCase& c, const TensorData& g);
/// The op case's input gradients from its backward rule on device (float inputs and g in
/// float_dtype). BackwardArgs carries the inputs and outputs only when the rule says it needs
/// them, so a rule reading what it did not ask for fails.
ops::Handles rule_vjp(const GradCase& c, const Device& device, const TensorData& g,
                      DType float_dtype = DType::F64);

/// Tolerance of the finite-difference comparison (f64, eps 1e-6).
inline constexpr Tolerance kGradTolerance{1e-6, 1e-7};
/// Success when grad is defined, has input's shape and dtype (dtype: input's converted to
/// float_dtype) and values within tol of expected.
::testing::AssertionResult grad_matches(const TensorHandle& grad, const TensorData& input,
                                        const TensorData& expected, Tolerance tol,
                                        DType float_dtype = DType::F64);

/// End to end through the public API: c's f64 inputs become require_grad leaves on
/// Device::ndarray().autodiff(), loss = sum(f(x) * g) with g = output_gradient(c), backward();
/// success when every leaf's gradient matches numeric_vjp.
::testing::AssertionResult api_gradient_matches(const GradCase& c);

}  // namespace ember::test
