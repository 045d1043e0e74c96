// ndarray, the reference backend, against NumPy: every case of golden.json (written by
// tests/golden/generate.py) runs through the op table on Device::ndarray() and must match
// NumPy's outputs: within Tolerance::for_dtype for floats, exactly for ints and bools.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ember/device.h"
#include "golden_cases.h"
#include "support/op_compare.h"
#include "support/op_table.h"

namespace ember::test {
namespace {

/// The dtypes golden.json must cover for an op accepting them (the others are optional).
constexpr DType kRequiredDTypes[] = {DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool};

bool has_golden_case(const std::string& name, DType dtype) {
  return std::ranges::any_of(
      golden_cases(), [&](const GoldenCase& c) { return c.name == name && c.dtype == dtype; });
}

/// The names of the cases NumPy can check.
std::vector<std::string> golden_ops() {
  std::vector<std::string> names;
  for (const OpCase& op : op_table()) {
    if (op.has_golden) names.push_back(op.name);
  }
  return names;
}

TEST(Golden, EveryCaseRunsAnAcceptedDTypeOfATableCase) {
  for (const GoldenCase& c : golden_cases()) {
    const OpCase* op = find_op_case(c.name);
    ASSERT_NE(op, nullptr) << "golden.json case " << c.name << " is not in the op table";
    EXPECT_TRUE(op->has_golden) << c.name;
    EXPECT_TRUE(contains(op->dtypes, c.dtype)) << c.name << " does not accept " << c.dtype;
  }
}

TEST(Golden, EveryTableCaseHasGoldenValuesForItsMainDTypes) {
  for (const std::string& name : golden_ops()) {
    for (DType dtype : kRequiredDTypes) {
      if (contains(find_op_case(name)->dtypes, dtype)) {
        EXPECT_TRUE(has_golden_case(name, dtype)) << name << " has no " << dtype << " case";
      }
    }
  }
}

/// Every dtype golden.json holds. One test per dtype, not per op: each test process parses
/// golden.json, which costs more than running its cases (and adds up under ASan).
constexpr DType kGoldenDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16,
                                   DType::I32, DType::I64, DType::Bool};

class GoldenDType : public ::testing::TestWithParam<DType> {};

TEST_P(GoldenDType, MatchesNumPy) {
  int count = 0;
  for (const GoldenCase& c : golden_cases()) {
    if (c.dtype != GetParam()) continue;
    ++count;
    EXPECT_TRUE(
        run_matches(*find_op_case(c.name), c.inputs, {Device::ndarray(), c.dtype}, c.outputs))
        << c.name << " " << c.dtype;
  }
  EXPECT_GT(count, 0) << "golden.json has no " << GetParam() << " case";
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenDType, ::testing::ValuesIn(kGoldenDTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember::test
