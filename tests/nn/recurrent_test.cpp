// nn::Lstm and nn::Gru against torch.nn.LSTM / torch.nn.GRU (goldens of generate_sequence.py:
// outputs, final states, gradients), an LSTM's gradients against central finite differences,
// PyTorch's parameter names, initialization, dropout between layers, and errors.
#include "ember/nn/recurrent.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sequence_support.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

namespace golden = sequence_golden;
using golden::json;

template <typename M>
M golden_recurrent(const json& c, const Device& device) {
  M m = RecurrentConfig<M>{c.at("input_size").get<int64_t>(),
                           c.at("hidden_size").get<int64_t>(),
                           c.at("num_layers").get<int64_t>(),
                           c.at("bias").get<bool>(),
                           0.0,
                           c.at("bidirectional").get<bool>()}
            .init(device);
  golden::load_state(m, c.at("state"), device);
  return m;
}

std::optional<Tensor<3>> golden_state(const json& c, const char* name, const Device& device) {
  if (!c.contains(name)) return std::nullopt;
  return golden::tensor<3>(c.at(name), device);
}

/// Backpropagates the golden loss and compares the gradients of x and of layer 0's weights.
template <typename M>
void expect_golden_gradients(const json& c, const M& m, const Tensor<3>& x,
                             const Tensor<3>& output) {
  const Gradients grads = golden::probed_loss(output, c.at("probe")).backward();
  const json& expected = c.at("grads");
  golden::expect_near(*x.grad(grads), expected.at("x"), "x gradient");
  golden::expect_near(*m.weights[0].weight_hh.grad(grads), expected.at("weight_hh_l0"),
                      "weight_hh_l0 gradient");
  golden::expect_near(*m.weights[0].weight_ih.grad(grads), expected.at("weight_ih_l0"),
                      "weight_ih_l0 gradient");
}

void expect_lstm_matches_pytorch(const std::string& name) {
  const json& c = golden::sequence_case(name);
  const Device device = ember::test::suite_device().autodiff();
  const Lstm lstm = golden_recurrent<Lstm>(c, device);
  const Tensor<3> x = golden::tensor<3>(c.at("x"), device).require_grad();
  std::optional<LstmState> state;
  if (c.contains("h0"))
    state = LstmState{*golden_state(c, "h0", device), *golden_state(c, "c0", device)};
  const LstmOutput out = lstm.forward(x, state);
  golden::expect_near(out.output, c.at("output"), "output");
  golden::expect_near(out.state.h, c.at("h_n"), "h_n");
  golden::expect_near(out.state.c, c.at("c_n"), "c_n");
  expect_golden_gradients(c, lstm, x, out.output);
}

void expect_gru_matches_pytorch(const std::string& name) {
  const json& c = golden::sequence_case(name);
  const Device device = ember::test::suite_device().autodiff();
  const Gru gru = golden_recurrent<Gru>(c, device);
  const Tensor<3> x = golden::tensor<3>(c.at("x"), device).require_grad();
  const GruOutput out = gru.forward(x, golden_state(c, "h0", device));
  golden::expect_near(out.output, c.at("output"), "output");
  golden::expect_near(out.h, c.at("h_n"), "h_n");
  expect_golden_gradients(c, gru, x, out.output);
}

TEST(Lstm, TwoLayersWithInitialStateMatchPyTorch) {
  expect_lstm_matches_pytorch("lstm");
}

TEST(Lstm, BidirectionalTwoLayersFromZeroStateMatchPyTorch) {
  expect_lstm_matches_pytorch("lstm_bidirectional");
}

TEST(Gru, TwoLayersWithInitialStateMatchPyTorch) {
  expect_gru_matches_pytorch("gru");
}

TEST(Gru, BidirectionalWithoutBiasMatchesPyTorch) {
  expect_gru_matches_pytorch("gru_bidirectional_no_bias");
}

std::vector<std::string> parameter_names_of(const std::vector<NamedTensor>& tensors) {
  std::vector<std::string> names;
  for (const NamedTensor& t : tensors)
    names.push_back(t.name);
  return names;
}

TEST(Lstm, ParamsHavePyTorchNamesAndShapes) {
  const Lstm lstm = LstmConfig{3, 5, 2, true, 0.0, true}.init(ember::test::suite_device());
  const std::vector<NamedTensor> params = named_parameters(lstm);
  EXPECT_EQ(parameter_names_of(params),
            (std::vector<std::string>{
                "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
                "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse", "weight_ih_l1",
                "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", "weight_ih_l1_reverse",
                "weight_hh_l1_reverse", "bias_ih_l1_reverse", "bias_hh_l1_reverse"}));
  EXPECT_EQ(params[0].tensor.shape(), Shape({20, 3}));
  EXPECT_EQ(params[1].tensor.shape(), Shape({20, 5}));
  EXPECT_EQ(params[2].tensor.shape(), Shape({20}));
  // Layer 1 reads both directions of layer 0.
  EXPECT_EQ(params[8].tensor.shape(), Shape({20, 10}));
  EXPECT_EQ(lstm.num_layers(), 2);
  EXPECT_EQ(parameter_names_of(
                named_parameters(GruConfig{2, 3, 1, false}.init(ember::test::suite_device()))),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0"}));
}

TEST(Gru, InitIsUniformWithinOneOverSqrtHidden) {
  const Gru gru = GruConfig{3, 4}.init(ember::test::suite_device());
  EXPECT_EQ(gru.weights[0].weight_ih->shape(), Shape({12, 3}));
  for (const NamedTensor& p : named_parameters(gru)) {
    for (double v : ops::into_data(p.tensor).to_vector<double>())
      EXPECT_LE(std::abs(v), 0.5) << p.name;
  }
}

/// sum(output * probe) of lstm on x, without a graph.
double probed(const Lstm& lstm, const Tensor<3>& x, const Tensor<3>& probe) {
  return (lstm.forward(x).output * probe).sum().into_scalar<double>();
}

TEST(Lstm, GradientsMatchFiniteDifferences) {
  const Device device = ember::test::suite_device().autodiff();
  const TensorCreationOptions f64 = TensorCreationOptions(device).with_dtype(DType::F64);
  Lstm lstm = LstmConfig{2, 2, 2}.init(device);
  golden::params_to_f64(lstm);
  const Tensor<3> x = Tensor<3>::random({1, 3, 2}, Distribution::normal(0.0, 1.0), f64);
  const Tensor<3> probe = Tensor<3>::random({1, 3, 2}, Distribution::normal(0.0, 1.0), f64);
  const Tensor<3> tracked = x.require_grad();
  const Gradients grads = (lstm.forward(tracked).output * probe).sum().backward();
  const std::vector<double> dx = tracked.grad(grads)->into_data().to_vector<double>();
  const std::vector<double> dw =
      lstm.weights[0].weight_hh.grad(grads)->into_data().to_vector<double>();

  constexpr double eps = 1e-6;
  const std::vector<double> xs = x.into_data().to_vector<double>();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::vector<double> up = xs, down = xs;
    up[i] += eps;
    down[i] -= eps;
    const double numeric = (probed(lstm, Tensor<3>::from_data({up, x.shape()}, f64), probe) -
                            probed(lstm, Tensor<3>::from_data({down, x.shape()}, f64), probe)) /
                           (2 * eps);
    EXPECT_NEAR(dx[i], numeric, 1e-7) << "x " << i;
  }
  const Tensor<2> w = *lstm.weights[0].weight_hh;
  const std::vector<double> ws = w.into_data().to_vector<double>();
  for (std::size_t i = 0; i < ws.size(); ++i) {
    Lstm shifted = lstm;
    std::vector<double> values = ws;
    values[i] += eps;
    shifted.weights[0].weight_hh.assign(Tensor<2>::from_data({values, w.shape()}, f64).handle());
    const double up = probed(shifted, x, probe);
    values[i] -= 2 * eps;
    shifted.weights[0].weight_hh.assign(Tensor<2>::from_data({values, w.shape()}, f64).handle());
    EXPECT_NEAR(dw[i], (up - probed(shifted, x, probe)) / (2 * eps), 1e-7) << "weight_hh " << i;
  }
}

TEST(Lstm, DropoutActsBetweenLayersInTrainingOnly) {
  const Device device = ember::test::suite_device();
  const Tensor<3> x = Tensor<3>::random({2, 3, 2}, Distribution::normal(0.0, 1.0), device);
  Lstm deep = LstmConfig{2, 8, 2, true, 0.5}.init(device);
  const std::vector<double> trained = deep.forward(x).output.into_data().to_vector<double>();
  eval(deep);
  const std::vector<double> evaluated = deep.forward(x).output.into_data().to_vector<double>();
  EXPECT_NE(trained, evaluated);
  // One layer: nothing follows the last layer, so training changes nothing.
  Lstm shallow = LstmConfig{2, 8, 1, true, 0.5}.init(device);
  const std::vector<double> shallow_trained =
      shallow.forward(x).output.into_data().to_vector<double>();
  eval(shallow);
  EXPECT_EQ(shallow_trained, shallow.forward(x).output.into_data().to_vector<double>());
}

TEST(Recurrent, ConfigErrorsNameTheValues) {
  const Device device = ember::test::suite_device();
  layer_golden::expect_invalid([&] { LstmConfig{0, 4}.init(device); }, {"[Lstm] ", "input_size 0"});
  layer_golden::expect_invalid([&] { GruConfig{3, 0}.init(device); }, {"[Gru] ", "hidden_size 0"});
  layer_golden::expect_invalid(
      [&] {
        LstmConfig{3, 4, 0}.init(device);
      },
      {"[Lstm] ", "num_layers 0"});
  layer_golden::expect_invalid(
      [&] {
        GruConfig{3, 4, 2, true, -0.5}.init(device);
      },
      {"[Gru] ", "dropout -0.5"});
}

TEST(Recurrent, ForwardErrorsNameTheShapes) {
  const Device device = ember::test::suite_device();
  const Lstm lstm = LstmConfig{3, 4, 2}.init(device);
  layer_golden::expect_invalid(
      [&] {
        lstm.forward(Tensor<3>::zeros({2, 5, 2}, device));
      },
      {"[Lstm] ", "[2, 5, 2]", "input_size = 3"});
  layer_golden::expect_invalid(
      [&] {
        lstm.forward(Tensor<3>::zeros({2, 0, 3}, device));
      },
      {"[Lstm] ", "[2, 0, 3]"});
  const Tensor<3> x = Tensor<3>::zeros({2, 5, 3}, device);
  const Tensor<3> good = Tensor<3>::zeros({2, 2, 4}, device);
  const Tensor<3> bad = Tensor<3>::zeros({1, 2, 4}, device);
  layer_golden::expect_invalid(
      [&] {
        lstm.forward(x, LstmState{good, bad});
      },
      {"[Lstm] ", "c [1, 2, 4]", "[2, 2, 4]"});
  const Gru gru = GruConfig{3, 4}.init(device);
  layer_golden::expect_invalid([&] { gru.forward(x, good); },
                               {"[Gru] ", "h [2, 2, 4]", "[1, 2, 4]"});
  layer_golden::expect_invalid([&] { Gru{}.forward(x); }, {"[Gru] ", "no weights"});
}

}  // namespace
}  // namespace ember::nn
