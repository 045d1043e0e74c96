// What the sequence-layer tests share, on top of layer_golden.h (whose readers, loader and
// comparisons they reuse): the cases of tests/nn/sequence_golden.json (written by
// generate_sequence.py) as typed tensors, the generator's probed loss, and f64 params for finite
// differences.
#pragma once

#include <cstddef>
#include <string>

#include "ember/ember.h"
#include "ember/nn/module.h"
#include "layer_golden.h"

namespace ember::nn::sequence_golden {

using layer_golden::json;

/// The case named name of sequence_golden.json; a missing case throws.
const json& sequence_case(const std::string& name);

/// A golden Float tensor of rank D on device (f64).
template <std::size_t D>
Tensor<D> tensor(const json& t, const Device& device) {
  return Tensor<D>(layer_golden::tensor_of(t, device));
}
/// A golden mask (written as i64 0/1) of rank D on device.
template <std::size_t D>
Tensor<D, Bool> mask(const json& t, const Device& device) {
  return Tensor<D, Int>(layer_golden::tensor_of(t, device)).to_bool();
}

/// Loads a golden state_dict into module by name (layer_golden::load_state).
template <Module M>
void load_state(M& module, const json& state, const Device& device) {
  layer_golden::load_state([&](ModuleVisitor& v) { visit(module, v); }, state, device);
}

/// Expects actual to match the golden tensor expected (layer_golden::expect_near).
template <std::size_t D>
void expect_near(const Tensor<D>& actual, const json& expected, const std::string& what) {
  layer_golden::expect_near(actual.handle(), expected, what);
}
/// Expects actual to match the values of another tensor.
template <std::size_t D>
void expect_near(const Tensor<D>& actual, const Tensor<D>& expected, const std::string& what) {
  expect_near(actual,
              json{{"shape", expected.shape().dims()},
                   {"data", expected.into_data().template to_vector<double>()}},
              what);
}

/// sum(output * probe): the loss whose gradients the generator recorded.
template <std::size_t D>
Tensor<1> probed_loss(const Tensor<D>& output, const json& probe) {
  return (output * tensor<D>(probe, output.device())).sum();
}

/// Every param of a module walk cast to f64 (finite differences need the precision).
void params_to_f64(const layer_golden::Walk& walk);
template <Module M>
void params_to_f64(M& module) {
  params_to_f64([&](ModuleVisitor& v) { visit(module, v); });
}

}  // namespace ember::nn::sequence_golden
