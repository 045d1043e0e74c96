// Building blocks of the op table (op_table.cpp): how a case describes its inputs and runs its
// op, and the families of cases (one op_cases_<family>.cpp each).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/ops.h"
#include "support/op_table.h"
#include "support/op_values.h"

namespace ember::test {

/// The shape of most inputs: small, with three distinct extents so that mixed-up axes show.
inline const Shape kShape{2, 3, 4};

/// One input tensor of a case.
struct InputSpec {
  Shape shape;
  ValueSpec values;
  /// The input's dtype; nullopt: the dtype the case runs in.
  std::optional<DType> dtype;
  /// When not empty: these values (converted to the dtype) instead of drawn ones.
  std::vector<double> fixed;
};

/// The test dtypes of an op table's dtypes column.
DTypes of_table(ir::DTypeSet dtypes);

/// Drawn values of the case's dtype.
InputSpec drawn(Shape shape, ValueSpec values = {});
/// Drawn values of a fixed dtype (Bool masks, I64 indices).
InputSpec drawn_as(DType dtype, Shape shape, ValueSpec values = {});
/// Given values in the case's dtype (special floats, ties at .5).
InputSpec given(Shape shape, std::vector<double> values);
/// I64 index values.
InputSpec indices(Shape shape, std::vector<double> values);

/// The non-tensor arguments of a case for a dtype (scalars follow the dtype's kind).
using ArgsFor = std::function<OpArgs(DType)>;
/// The same arguments for every dtype.
ArgsFor fixed_args(OpArgs args);
/// A value of dtype's kind: real for floats, integer for ints, integer != 0 for bool.
ArgValue kind_value(DType dtype, double real, int64_t integer);

/// A case of name over dtypes: inputs drawn per InputSpec (each with its own seed), arguments
/// from args.
OpCase make_case(std::string name, DTypes dtypes, std::vector<InputSpec> inputs, OpRun run,
                 ArgsFor args = fixed_args({}));

/// The gradient op grad (an ir op of its own, which a backend may run with a kernel of its own:
/// the pooling and interpolation gradients) on a drawn output gradient of the shape forward gives
/// an input of shape x; float dtypes, no NumPy reference (has_golden false).
OpCase gradient_case(std::string name, ir::Op grad, const ir::Op& forward, const Shape& x,
                     ValueSpec values = {});

// Runners for the common signatures of tensor_ops.h.
using UnaryFn = TensorHandle (*)(const TensorHandle&);
using BinaryFn = TensorHandle (*)(const TensorHandle&, const TensorHandle&);
using ScalarFn = TensorHandle (*)(const TensorHandle&, Scalar);
using DimFn = TensorHandle (*)(const TensorHandle&, int64_t);
/// fn(inputs[0]).
OpRun run_unary(UnaryFn fn);
/// fn(inputs[0], inputs[1]).
OpRun run_binary(BinaryFn fn);
/// fn(inputs[0], args.scalar(key)).
OpRun run_scalar(ScalarFn fn, std::string key = "scalar");
/// fn(inputs[0], args.integer("dim")).
OpRun run_dim(DimFn fn);

// The families, in table order.
std::vector<OpCase> creation_cases();
std::vector<OpCase> unary_cases();
std::vector<OpCase> binary_cases();
std::vector<OpCase> scalar_cases();
std::vector<OpCase> compare_cases();
std::vector<OpCase> reduce_cases();
std::vector<OpCase> layout_cases();
std::vector<OpCase> index_cases();
std::vector<OpCase> sort_cases();
std::vector<OpCase> activation_cases();
std::vector<OpCase> conv_cases();
std::vector<OpCase> pool_cases();
std::vector<OpCase> interpolate_cases();
std::vector<OpCase> attention_cases();
std::vector<OpCase> row_op_cases();

}  // namespace ember::test
