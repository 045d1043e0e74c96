// Importers of ONNX's recurrent layers RNN, GRU and LSTM, written out step by step over the
// sequence with ember's matmul and activations (the graph grows with the sequence length): the
// input's part of every gate for all steps as one matmul, then per step the hidden state's part
// and the cell. Forward, reverse and bidirectional; layout 0 ([T, B, ...]) and 1 ([B, T, ...]);
// clip; LSTM's peepholes, GRU's linear_before_reset. The default activations only (sigmoid for
// gates, tanh otherwise), and sequence_lens only where every sequence is full length.
#include <functional>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// What every step of one direction sees.
struct Direction {
  TensorHandle input_gates;              ///< [T, B, G * H]: x W^T + Wb, for every step
  TensorHandle r;                        ///< [H, G * H]: R^T
  TensorHandle rb;                       ///< [G * H]: R's bias
  std::optional<TensorHandle> peephole;  ///< LSTM's P [3 H]: i, o, f
};

/// The recurrent state: the hidden state, and LSTM's cell.
struct State {
  TensorHandle h;
  std::optional<TensorHandle> c;
};

/// A cell: the next state from a step's input gates [B, G * H] and the current state.
using Cell = std::function<State(const OnnxNode&, const Direction&, const TensorHandle&,
                                 const State&, int64_t)>;

/// Gate k of H of gates [B, G * H].
TensorHandle gate(const TensorHandle& gates, int64_t k, int64_t hidden) {
  return ops::narrow(gates, 1, k * hidden, hidden);
}

/// x clipped to [-clip, clip] where the node sets clip.
TensorHandle clipped(const OnnxNode& node, const TensorHandle& x) {
  const std::optional<float> clip =
      node.has_attribute("clip") ? std::optional(node.attr_float("clip", 0.0F)) : std::nullopt;
  return clip ? ops::clamp(x, -static_cast<double>(*clip), static_cast<double>(*clip)) : x;
}

State rnn_cell(const OnnxNode& node, const Direction& d, const TensorHandle& x_gates,
               const State& s, int64_t) {
  const TensorHandle pre = ops::add(ops::add(x_gates, ops::matmul(s.h, d.r)), d.rb);
  return {ops::tanh(clipped(node, pre)), std::nullopt};
}

State gru_cell(const OnnxNode& node, const Direction& d, const TensorHandle& x_gates,
               const State& s, int64_t hidden) {
  // Gates z, r, h; h's hidden part comes after the reset gate.
  const TensorHandle r_z = gate(d.r, 0, hidden), r_r = gate(d.r, 1, hidden),
                     r_h = gate(d.r, 2, hidden);
  const auto bias = [&](int64_t k) { return ops::narrow(d.rb, 0, k * hidden, hidden); };
  const auto sigmoid_gate = [&](int64_t k, const TensorHandle& r) {
    return ops::sigmoid(
        clipped(node, ops::add(ops::add(gate(x_gates, k, hidden), ops::matmul(s.h, r)), bias(k))));
  };
  const TensorHandle z = sigmoid_gate(0, r_z), r = sigmoid_gate(1, r_r);
  const TensorHandle hidden_part = node.attr_int("linear_before_reset", 0) != 0
                                       ? ops::mul(r, ops::add(ops::matmul(s.h, r_h), bias(2)))
                                       : ops::add(ops::matmul(ops::mul(r, s.h), r_h), bias(2));
  const TensorHandle candidate =
      ops::tanh(clipped(node, ops::add(gate(x_gates, 2, hidden), hidden_part)));
  return {ops::add(ops::mul(ops::rsub_scalar(z, 1.0), candidate), ops::mul(z, s.h)), std::nullopt};
}

State lstm_cell(const OnnxNode& node, const Direction& d, const TensorHandle& x_gates,
                const State& s, int64_t hidden) {
  // Gates i, o, f, c; peepholes i, o, f.
  const TensorHandle gates = ops::add(ops::add(x_gates, ops::matmul(s.h, d.r)), d.rb);
  const auto peep = [&](int64_t k, const TensorHandle& c, const TensorHandle& pre) {
    if (!d.peephole) return pre;
    return ops::add(pre, ops::mul(ops::narrow(*d.peephole, 0, k * hidden, hidden), c));
  };
  const TensorHandle i = ops::sigmoid(clipped(node, peep(0, *s.c, gate(gates, 0, hidden))));
  const TensorHandle f = ops::sigmoid(clipped(node, peep(2, *s.c, gate(gates, 2, hidden))));
  const TensorHandle candidate = ops::tanh(clipped(node, gate(gates, 3, hidden)));
  const TensorHandle c = ops::add(ops::mul(f, *s.c), ops::mul(i, candidate));
  const TensorHandle o = ops::sigmoid(clipped(node, peep(1, c, gate(gates, 1, hidden))));
  return {ops::mul(o, ops::tanh(c)), c};
}

/// Input k, [D, B, H] (layout 0) or [B, D, H] (layout 1), as [D, B, H]; zeros when absent.
TensorHandle initial(const OnnxNode& node, std::size_t k, bool batch_first,
                     const std::vector<int64_t>& dims, DType dtype) {
  if (!node.has(k))
    return ops::zeros(Shape(dims), TensorCreationOptions(node.device()).with_dtype(dtype),
                      TensorKind::Float);
  const TensorHandle x = batch_first ? ops::permute(node.tensor(k), {1, 0, 2}) : node.tensor(k);
  if (x.shape().dims() != dims) node.fail("input ", k, " ", x.shape(), " is not ", Shape(dims));
  return x;
}

/// Refuses what the importer does not compute: other activations, and sequences shorter than T.
void check_supported(const OnnxNode& node, int64_t steps) {
  if (node.has_attribute("activations"))
    node.fail("activations other than the defaults are not imported");
  if (!node.has(4)) return;
  for (int64_t length : node.known_ints(4, "sequence_lens")) {
    if (length != steps) node.fail("sequence_lens other than the full length ", steps);
  }
}

std::vector<OnnxValue> recurrent(const OnnxNode& node, int64_t gates, const Cell& cell, bool lstm) {
  const bool batch_first = node.attr_int("layout", 0) != 0;
  const TensorHandle x = batch_first ? ops::permute(node.tensor(0), {1, 0, 2}) : node.tensor(0);
  const TensorHandle& w = node.tensor(1);
  const TensorHandle& r = node.tensor(2);
  const int64_t hidden = node.attr_int("hidden_size", 0);
  const std::string direction = node.attr_string("direction", "forward");
  const int64_t directions = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    node.fail("direction '", direction, "'");
  // hidden is bounded before gates * hidden is formed (a hostile hidden_size would overflow it).
  constexpr int64_t kMaxHidden = int64_t{1} << 31;
  if (x.rank() != 3 || hidden < 1 || hidden > kMaxHidden ||
      w.shape().dims() != std::vector<int64_t>{directions, gates * hidden, x.shape().dims()[2]} ||
      r.shape().dims() != std::vector<int64_t>{directions, gates * hidden, hidden})
    node.fail("X ", x.shape(), ", W ", w.shape(), " and R ", r.shape(), " for hidden_size ", hidden,
              " and ", directions, " directions");
  const int64_t steps = x.shape().dims()[0], batch = x.shape().dims()[1];
  check_supported(node, steps);
  const std::vector<int64_t> state_dims{directions, batch, hidden};
  const TensorHandle h0 = initial(node, 5, batch_first, state_dims, x.dtype());
  const std::optional<TensorHandle> c0 =
      lstm ? std::optional(initial(node, 6, batch_first, state_dims, x.dtype())) : std::nullopt;
  std::vector<TensorHandle> ys, hs, cs;
  for (int64_t d = 0; d < directions; ++d) {
    const auto row = [&](const TensorHandle& t) {
      return ops::squeeze(ops::narrow(t, 0, d, 1), 0);
    };
    const int64_t width = gates * hidden;
    TensorHandle wb =
        ops::zeros(Shape{width}, TensorCreationOptions(node.device()).with_dtype(x.dtype()),
                   TensorKind::Float);
    TensorHandle rb = wb;
    if (node.has(3)) {
      if (node.tensor(3).shape().dims() != std::vector<int64_t>{directions, 2 * width})
        node.fail("B ", node.tensor(3).shape(), " is not [", directions, ", ", 2 * width, "]");
      wb = ops::narrow(row(node.tensor(3)), 0, 0, width);
      rb = ops::narrow(row(node.tensor(3)), 0, width, width);
    }
    Direction dir{ops::add(ops::matmul(x, ops::unsqueeze(ops::transpose(row(w)), 3)), wb),
                  ops::transpose(row(r)), rb, std::nullopt};
    if (lstm && node.has(7)) dir.peephole = row(node.tensor(7));
    State s{row(h0), c0 ? std::optional(row(*c0)) : std::nullopt};
    const bool reverse = direction == "reverse" || d == 1;
    std::vector<TensorHandle> outputs(static_cast<std::size_t>(steps));
    for (int64_t k = 0; k < steps; ++k) {
      const int64_t t = reverse ? steps - 1 - k : k;
      s = cell(node, dir, ops::squeeze(ops::narrow(dir.input_gates, 0, t, 1), 0), s, hidden);
      outputs[static_cast<std::size_t>(t)] = s.h;
    }
    ys.push_back(ops::stack(outputs, 0));  // [T, B, H]
    hs.push_back(s.h);
    if (s.c) cs.push_back(*s.c);
  }
  TensorHandle y = ops::stack(ys, 1);  // [T, D, B, H]
  TensorHandle y_h = ops::stack(hs, 0);
  if (batch_first) {
    y = ops::permute(y, {2, 0, 1, 3});
    y_h = ops::permute(y_h, {1, 0, 2});
  }
  std::vector<OnnxValue> out{{y, false}, {y_h, false}};
  if (lstm)
    out.push_back(
        {batch_first ? ops::permute(ops::stack(cs, 0), {1, 0, 2}) : ops::stack(cs, 0), false});
  return out;
}

std::vector<OnnxValue> rnn(const OnnxNode& node) {
  return recurrent(node, 1, rnn_cell, false);
}
std::vector<OnnxValue> gru(const OnnxNode& node) {
  return recurrent(node, 3, gru_cell, false);
}
std::vector<OnnxValue> lstm(const OnnxNode& node) {
  return recurrent(node, 4, lstm_cell, true);
}

}  // namespace

void add_recurrent_importers(OnnxImporters& table) {
  table.insert({
      {"RNN", rnn},
      {"GRU", gru},
      {"LSTM", lstm},
  });
}

}  // namespace ember::detail
