// The autocast policy: what an op does with its float inputs on an autocast device
// (Device::autocast, docs/mixed-precision.md). Declared here, once, for every op of ir::Op; the
// Tensor API's dispatch applies it (src/tensor/autocast.cpp).
#pragma once

#include <cstdint>

#include "ir/ops.h"

namespace ember::ir {

enum class AutocastPolicy : uint8_t {
  /// Runs on its float inputs cast to the autocast dtype (f16 or bf16): the products whose
  /// throughput reduced precision buys (matmul, convolution). f64 inputs are left alone.
  Lower,
  /// Runs on its f16 and bf16 inputs cast to f32: the ops whose range or accumulated error
  /// reduced precision would spoil (reductions, softmax, exp and log, ...).
  F32,
  /// Runs on the dtypes it is given (mixed float dtypes promote as without autocast).
  Keep,
};

/// op's policy. Note: the visitor behind it names every op struct and its switches every
/// enumerator of the op table without a default, so that a new op does not compile until it is
/// given a policy.
AutocastPolicy autocast_policy(const Op& op);

}  // namespace ember::ir
