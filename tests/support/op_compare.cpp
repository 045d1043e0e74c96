#include "support/op_compare.h"

#include <exception>
#include <string>

namespace ember::test {

::testing::AssertionResult meta_match(const TensorData& actual, const ExpectedOutput& expected) {
  if (actual.dtype() != expected.dtype) {
    return ::testing::AssertionFailure()
           << "dtype " << actual.dtype() << ", expected " << expected.dtype;
  }
  if (actual.shape() != expected.values.shape()) {
    return ::testing::AssertionFailure()
           << "shape " << actual.shape() << ", expected " << expected.values.shape();
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult values_match(const TensorData& actual, const ExpectedOutput& expected) {
  if (auto meta = meta_match(actual, expected); !meta) return meta;
  std::string why;
  if (actual.convert(DType::F64)
          .approx_equal(expected.values.convert(DType::F64), Tolerance::for_dtype(expected.dtype),
                        &why)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << why << "\n  actual:   " << actual << "\n  expected: " << expected.values;
}

::testing::AssertionResult run_matches(const OpCase& op, const OpInputs& inputs,
                                       const OpTarget& target,
                                       const std::vector<ExpectedOutput>& expected) {
  std::vector<TensorData> actual;
  try {
    actual = read_all(run_case(op, inputs, target));
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw: " << e.what();
  }
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << actual.size() << " outputs, expected " << expected.size();
  }
  for (std::size_t i = 0; i < actual.size(); ++i) {
    auto match = op.values_defined ? values_match(actual[i], expected[i])
                                   : meta_match(actual[i], expected[i]);
    if (!match) return ::testing::AssertionFailure() << "output " << i << ": " << match.message();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ember::test
