// Helpers for the optim tests: f64 tensors and a small Linear on the suite's device (ndarray
// unless EMBER_TEST_DEVICE names another; autodiff on, as in training), fixed gradients, and the
// PyTorch goldens of golden.json (written by generate.py).
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/linear.h"
#include "ember/optim/optim.h"
#include "tensor/tensor_test_util.h"

namespace ember::optim::test {

using ember::test::values;
using nlohmann::json;

/// ember::test::suite_device() with autodiff on.
Device device();
/// An f64 tensor of shape holding values, on device().
TensorHandle f64(const std::vector<double>& values, Shape shape);
/// A nested JSON array of numbers as an f64 tensor (the nesting gives the shape).
TensorHandle tensor_of(const json& nested);
/// tests/optim/golden.json.
const json& golden();

/// A Linear with the given weight and bias values.
nn::Linear linear(const TensorHandle& weight, const TensorHandle& bias);
/// A Linear 3 → 2 with fixed, distinct values.
nn::Linear small_linear();
/// Distinct gradients for small_linear's "weight" and "bias" at step (no two steps alike).
GradientsParams fixed_grads(int step);

/// Expects actual to hold expected's values (nested JSON) within a relative 1e-10.
void expect_near(const TensorHandle& actual, const json& expected);
/// Expects a and b to hold the same values bit for bit.
void expect_identical(const nn::Linear& a, const nn::Linear& b);

}  // namespace ember::optim::test
