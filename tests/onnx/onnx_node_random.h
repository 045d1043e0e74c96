// ONNX node-suite cases whose expected outputs are random draws (onnx_node_random.cpp): the
// suite's expected values are NumPy's generator's, which no other generator reproduces. For
// these cases the suite's runner compares no values; it checks what the op's definition
// determines instead.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ember/onnx.h"
#include "ember/tensor_data.h"

namespace ember::test {

/// What a random case's outputs must satisfy.
enum class RandomProperty {
  /// Output 0 holds 0 or 1 only; element i is 1 with probability input 0's element i.
  Bernoulli,
  /// Bernoulli's `_expanded` cases: ONNX's function body for Bernoulli is
  /// Cast(Greater(RandomUniformLike(p), p)), 1 with probability 1 - p, not p (onnx 1.23.2's
  /// own ReferenceEvaluator draws a mean of 0.098 from it for p = 0.9). The model computes what
  /// its graph says: 0 or 1, 1 with probability 1 - p.
  BernoulliComplement,
  /// Output 0's element i is 0 or x_i / (1 - ratio) (x: input 0, ratio: input 1, default 0.5),
  /// kept with probability 1 - ratio; output 1, when present, is true exactly where kept.
  Dropout,
};

/// The node suite's random-output cases, by name: the one list of them.
const std::map<std::string, RandomProperty>& random_cases();

/// The case's model run kRandomRuns times on each of cpu and ndarray (each run after its own
/// `Device::seed`) on the data set's inputs: every output's shape and dtype as expected, every
/// value one property allows, and each element's count of 1s (or of kept elements), and their
/// total, within 5 standard deviations (+0.5) of its binomial mean. tolerance: the case's, for
/// Dropout's scaled values. Empty when all hold, else why not.
std::string check_random_case(const onnx::Model& model, RandomProperty property,
                              const std::vector<TensorData>& inputs,
                              const std::vector<TensorData>& expected, Tolerance tolerance);

}  // namespace ember::test
