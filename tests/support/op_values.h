// Deterministic input values for op cases: a fixed-seed generator fills a TensorData of any
// dtype with values from a range the op is defined on (positive for log, non-zero divisors,
// ties for stable sorts, distinct values for topk, ...).
#pragma once

#include <cstdint>
#include <string_view>

#include "ember/tensor_data.h"

namespace ember::test {

/// Which values to draw. Integer dtypes round the range inwards and use a step of at least 1;
/// unsigned dtypes start at max(lo, 0); Bool draws false/true.
struct ValueSpec {
  double lo = -3.0;
  double hi = 3.0;
  /// 0: any real in [lo, hi] (any integer for int dtypes); else only lo + k * step.
  double step = 0.0;
  /// Integers skip 0; reals keep |v| >= 0.5 (divisors, reciprocals, products); Bool is all true.
  bool nonzero = false;
  /// No two elements equal: lo + step * (a permutation of 0..n-1), step 1 when 0; hi unused.
  bool distinct = false;
};

/// Values drawn from spec, the same for every call with the same arguments.
TensorData make_values(const Shape& shape, DType dtype, const ValueSpec& spec, uint64_t seed);

/// A seed derived from a case name and an input position (FNV-1a), so each input of each case
/// draws its own values.
uint64_t seed_for(std::string_view case_name, int input);

}  // namespace ember::test
