#include "ember/nn/recurrent.h"

#include <array>
#include <cmath>
#include <utility>

#include "config_checks.h"
#include "ember/activation_functions.h"
#include "ember/functional.h"
#include "ember/nn/init.h"

namespace ember::nn {
namespace {

/// What one layer and direction carries from step to step (c: the LSTM's cell only).
struct CellState {
  Tensor<2> h;
  std::optional<Tensor<2>> c;
};

/// One step of a cell: input_gates = x_t W_ih^T + b_ih [B, G * H], computed for every step at
/// once beforehand.
using CellStep = CellState (*)(const Tensor<2>& input_gates, const CellState& state,
                               const RecurrentWeights& w);

std::optional<Tensor<1>> value_of(const std::optional<Param<1>>& bias) {
  if (!bias) return std::nullopt;
  return bias->value();
}

/// h W_hh^T + b_hh [B, G * H]: the previous output's part of the gates.
Tensor<2> hidden_gates(const Tensor<2>& h, const RecurrentWeights& w) {
  return module::linear(h, *w.weight_hh, value_of(w.bias_hh));
}

CellState lstm_step(const Tensor<2>& input_gates, const CellState& state,
                    const RecurrentWeights& w) {
  const std::vector<Tensor<2>> g = (input_gates + hidden_gates(state.h, w)).chunk(4, 1);
  const Tensor<2> c =
      activation::sigmoid(g[1]) * *state.c + activation::sigmoid(g[0]) * g[2].tanh();
  return {activation::sigmoid(g[3]) * c.tanh(), c};
}

CellState gru_step(const Tensor<2>& input_gates, const CellState& state,
                   const RecurrentWeights& w) {
  const std::vector<Tensor<2>> x = input_gates.chunk(3, 1);
  const std::vector<Tensor<2>> h = hidden_gates(state.h, w).chunk(3, 1);
  const Tensor<2> r = activation::sigmoid(x[0] + h[0]);
  const Tensor<2> z = activation::sigmoid(x[1] + h[1]);
  const Tensor<2> n = (x[2] + r * h[2]).tanh();
  // (1 - z) * n + z * h, with one op less.
  return {n + z * (state.h - n), std::nullopt};
}

/// One layer in one direction over the whole sequence: its outputs [B, L, H] and last state.
std::pair<Tensor<3>, CellState> run_direction(const Tensor<3>& x, const RecurrentWeights& w,
                                              CellState state, bool reverse, CellStep step) {
  const Tensor<3> input_gates = module::linear(x, *w.weight_ih, value_of(w.bias_ih));
  const int64_t steps = x.dims()[1];
  std::vector<Tensor<2>> outputs(static_cast<std::size_t>(steps));
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t t = reverse ? steps - 1 - i : i;
    state = step(input_gates.narrow(1, t, 1).squeeze<2>(1), state, w);
    outputs[static_cast<std::size_t>(t)] = state.h;
  }
  return {Tensor<2>::stack<3>(outputs, 1), std::move(state)};
}

/// Every layer in turn, each one's output (through dropout in training) the next one's input;
/// states holds the initial state of each layer and direction and comes back with the last.
Tensor<3> run_layers(const RecurrentLayers& net, const Tensor<3>& x, std::vector<CellState>& states,
                     CellStep step) {
  const int64_t directions = net.directions();
  Tensor<3> input = x;
  for (int64_t layer = 0; layer < net.num_layers(); ++layer) {
    if (layer > 0) input = module::dropout(input, net.dropout, net.training);
    std::vector<Tensor<3>> outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const auto index = static_cast<std::size_t>(layer * directions + direction);
      auto [output, last] =
          run_direction(input, net.weights[index], states[index], direction == 1, step);
      outputs.push_back(std::move(output));
      states[index] = std::move(last);
    }
    input = directions == 1 ? outputs[0] : Tensor<3>::cat(outputs, 2);
  }
  return input;
}

void check_input(std::string_view layer, const RecurrentLayers& net, const Tensor<3>& x) {
  if (net.weights.empty()) detail::fail(layer, "has no weights (build it with its config)");
  if (x.dims()[2] != net.input_size() || x.dims()[1] < 1) {
    detail::fail(layer, "x ", x.shape(), " must be [B, L >= 1, input_size = ", net.input_size(),
                 "]");
  }
}

/// The rows of a state [D * num_layers, B, H], one per layer and direction; zeros when unset.
std::vector<Tensor<2>> state_rows(std::string_view layer, std::string_view name,
                                  const RecurrentLayers& net, const Tensor<3>& x,
                                  const std::optional<Tensor<3>>& state) {
  const int64_t rows = net.directions() * net.num_layers();
  const int64_t batch = x.dims()[0];
  const int64_t hidden = net.hidden_size();
  if (!state) {
    const auto zeros =
        Tensor<2>::zeros({batch, hidden}, TensorCreationOptions(x.device()).with_dtype(x.dtype()));
    return std::vector<Tensor<2>>(static_cast<std::size_t>(rows), zeros);
  }
  if (state->dims() != std::array{rows, batch, hidden}) {
    detail::fail(layer, name, ' ', state->shape(), " must be [D * num_layers, B, hidden_size] = [",
                 rows, ", ", batch, ", ", hidden, "]");
  }
  std::vector<Tensor<2>> result;
  for (int64_t row = 0; row < rows; ++row)
    result.push_back(state->narrow(0, row, 1).squeeze<2>(0));
  return result;
}

/// [D * num_layers, B, H] from the final state of each layer and direction.
template <typename Part>
Tensor<3> stack_states(const std::vector<CellState>& states, Part part) {
  std::vector<Tensor<2>> rows;
  for (const CellState& state : states)
    rows.push_back(part(state));
  return Tensor<2>::stack<3>(rows, 0);
}

}  // namespace

namespace detail {
std::string recurrent_suffix(std::size_t index, bool bidirectional) {
  const std::size_t directions = bidirectional ? 2 : 1;
  const bool reverse = index % directions == 1;
  return "_l" + std::to_string(index / directions) + (reverse ? "_reverse" : "");
}
}  // namespace detail

LstmOutput Lstm::forward(const Tensor<3>& x, const std::optional<LstmState>& state) const {
  check_input(kName, *this, x);
  std::optional<Tensor<3>> h0;
  std::optional<Tensor<3>> c0;
  if (state) h0 = state->h, c0 = state->c;
  const std::vector<Tensor<2>> h = state_rows(kName, "h", *this, x, h0);
  const std::vector<Tensor<2>> c = state_rows(kName, "c", *this, x, c0);
  std::vector<CellState> states;
  for (std::size_t i = 0; i < h.size(); ++i)
    states.push_back({h[i], c[i]});
  const Tensor<3> output = run_layers(*this, x, states, lstm_step);
  return {output,
          {stack_states(states, [](const CellState& s) { return s.h; }),
           stack_states(states, [](const CellState& s) { return *s.c; })}};
}

GruOutput Gru::forward(const Tensor<3>& x, const std::optional<Tensor<3>>& h) const {
  check_input(kName, *this, x);
  std::vector<CellState> states;
  for (const Tensor<2>& row : state_rows(kName, "h", *this, x, h))
    states.push_back({row, std::nullopt});
  const Tensor<3> output = run_layers(*this, x, states, gru_step);
  return {output, stack_states(states, [](const CellState& s) { return s.h; })};
}

template <typename M>
M RecurrentConfig<M>::init(const Device& device) const {
  detail::require_at_least(M::kName, "input_size", input_size, 1);
  detail::require_at_least(M::kName, "hidden_size", hidden_size, 1);
  detail::require_at_least(M::kName, "num_layers", num_layers, 1);
  detail::require_probability(M::kName, "dropout", dropout);
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  const Initializer uniform = Initializer::uniform(-bound, bound);
  const int64_t gates = M::kGates * hidden_size;
  M m;
  m.bidirectional = bidirectional;
  m.dropout = dropout;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    const int64_t in = layer == 0 ? input_size : m.directions() * hidden_size;
    for (int64_t direction = 0; direction < m.directions(); ++direction) {
      RecurrentWeights w{Param<2>(uniform.make<2>({gates, in}, device)),
                         Param<2>(uniform.make<2>({gates, hidden_size}, device)), std::nullopt,
                         std::nullopt};
      if (bias) {
        w.bias_ih = Param<1>(uniform.make<1>({gates}, device));
        w.bias_hh = Param<1>(uniform.make<1>({gates}, device));
      }
      m.weights.push_back(std::move(w));
    }
  }
  return m;
}

template struct RecurrentConfig<Lstm>;
template struct RecurrentConfig<Gru>;

}  // namespace ember::nn
