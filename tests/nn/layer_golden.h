// Runs the PyTorch goldens of tests/nn/layers_golden.json (written by generate_layers.py) on
// ember's layers: a case's state_dict is loaded into the layer by name, its inputs go through
// forward in turn, and the outputs, the gradients and the state after are compared.
#pragma once

#include <gtest/gtest.h>

#include <concepts>
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/module.h"

namespace ember::nn::layer_golden {

using nlohmann::json;

/// The device every golden runs on: ember::test::suite_device() (ndarray unless
/// EMBER_TEST_DEVICE names another) with autodiff on; f64 values come from the JSON.
Device golden_device();

/// The case named name; a missing case fails the test that asks for it (an exception).
const json& layer_case(const std::string& name);

/// A JSON tensor {"dtype", "shape", "data"} on device.
TensorHandle tensor_of(const json& t, const Device& device);

/// Expects actual's shape and values to equal expected's (|a - e| <= tol (1 + |e|)).
void expect_near(const TensorHandle& actual, const json& expected, const std::string& what,
                 double tol = 1e-10);

/// A module walk (nn::visit bound to one module).
using Walk = std::function<void(ModuleVisitor&)>;

/// Assigns each entry of state to the param or buffer of that dotted name; expects the module's
/// names and the entries' to be the same set (PyTorch and ember name the state alike).
void load_state(const Walk& walk, const json& state, const Device& device);

/// Expects every entry of expected to match the module's tensor of that name.
void expect_state(const std::vector<NamedTensor>& actual, const json& expected);

/// Expects the gradient of each entry of expected (a param name) in grads to match it.
void expect_param_grads(const std::vector<NamedTensor>& params, const Gradients& grads,
                        const json& expected);

/// Runs case name on layer (built on golden_device()): loads its state, calls forward on each
/// input (of rank D and kind K) and checks the outputs; then, when the case has them, the
/// gradients of sum(last output * grad_output) and the state after.
template <std::size_t D, typename K = Float, typename Layer>
void expect_golden(Layer& layer, const std::string& name) {
  SCOPED_TRACE("golden case " + name);
  const json& c = layer_case(name);
  const Device device = golden_device();
  load_state([&](ModuleVisitor& v) { visit(layer, v); }, c.at("state"), device);
  const json& inputs = c.at("inputs");
  const bool with_grads = c.contains("grad_output");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Tensor<D, K> x(tensor_of(inputs[i], device));
    const bool last = i + 1 == inputs.size();
    if constexpr (std::same_as<K, Float>) {
      if (last && with_grads) x = x.require_grad();
    }
    const auto y = layer.forward(x);
    expect_near(y.handle(), c.at("outputs")[i], "output " + std::to_string(i));
    if (!last || !with_grads) continue;
    const auto grad_output = decltype(y)(tensor_of(c.at("grad_output"), device));
    const Gradients grads = y.mul(grad_output).sum().backward();
    if constexpr (std::same_as<K, Float>) {
      ASSERT_TRUE(x.grad(grads).has_value());
      expect_near(x.grad(grads)->handle(), c.at("input_grad"), "input gradient");
    }
    expect_param_grads(named_parameters(layer), grads, c.at("param_grads"));
  }
  if (c.contains("state_after")) expect_state(state(layer), c.at("state_after"));
}

/// Expects f() to throw InvalidArgument whose message contains each of parts.
void expect_invalid(const std::function<void()>& f, const std::vector<std::string>& parts);

}  // namespace ember::nn::layer_golden
