// golden.json, parsed: the cases tests/golden/generate.py computed with NumPy.
#pragma once

#include <string>
#include <vector>

#include "ember/tensor_data.h"
#include "support/op_compare.h"
#include "support/op_table.h"

namespace ember::test {

struct GoldenCase {
  /// The op table case it runs (op_table.h).
  std::string name;
  DType dtype;
  OpInputs inputs;
  /// NumPy's values as f64, at full precision even for f16/bf16 outputs.
  std::vector<ExpectedOutput> outputs;
};

/// The cases of golden.json in EMBER_GOLDEN_DIR, parsed once; std::runtime_error when the file
/// is missing or malformed.
const std::vector<GoldenCase>& golden_cases();

}  // namespace ember::test
