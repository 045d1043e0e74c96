// Comparing an op case's outputs with a reference: NumPy's values (golden suite) or the ndarray
// device's outputs (conformance suite).
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "ember/tensor_data.h"
#include "support/op_table.h"

namespace ember::test {

/// One expected output: the dtype it must have and its values (in any dtype: they compare as
/// f64, so NumPy's f64 values can stand for an f16 output without a second rounding).
struct ExpectedOutput {
  DType dtype;
  TensorData values;
};

/// Success when actual has expected.dtype, expected's shape and values within
/// Tolerance::for_dtype(expected.dtype) (exact for ints and bools; NaN equals NaN). The message
/// names the first difference.
::testing::AssertionResult values_match(const TensorData& actual, const ExpectedOutput& expected);
/// The same for dtype and shape only (outputs whose values are unspecified).
::testing::AssertionResult meta_match(const TensorData& actual, const ExpectedOutput& expected);

/// Runs op on target and compares every output with expected (values_match, or meta_match when
/// !op.values_defined). An exception thrown by the op is a failure naming it.
::testing::AssertionResult run_matches(const OpCase& op, const OpInputs& inputs,
                                       const OpTarget& target,
                                       const std::vector<ExpectedOutput>& expected);

}  // namespace ember::test
