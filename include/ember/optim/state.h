// OptimizerState: what an optimizer or a learning-rate scheduler saves and restores. It is made
// of what a safetensors file holds: named tensors, and named numbers for its string metadata.
#pragma once

#include <map>
#include <string>

#include "ember/tensor_data.h"

namespace ember::optim {

/// The saved state of an optimizer (entries "<param>.<slot>": "fc1.weight.exp_avg",
/// "fc1.weight.step") or of a scheduler (the entry "step").
///
/// The numbers are counters, held as doubles: every integer up to 2^53 is exact, and a double
/// written with std::to_chars (shortest round-trip form) reads back bit for bit, so a record
/// stores them as strings in a safetensors header's metadata.
struct OptimizerState {
  std::map<std::string, TensorData> tensors;
  std::map<std::string, double> scalars;

  friend bool operator==(const OptimizerState&, const OptimizerState&) = default;
};

}  // namespace ember::optim
