// nn::Lstm and nn::Gru: torch.nn.LSTM and torch.nn.GRU with batch_first=True (parameter names,
// gate order, shapes and initialization), written with ops (matmul, slices, sigmoid, tanh,
// stack), so autodiff differentiates them like any other model.
//
// Layout: x [B, L, input_size] → output [B, L, D * hidden_size], D = 2 when bidirectional, else
// 1. The states h and c are [D * num_layers, B, hidden_size] — not batch first: as in PyTorch,
// batch_first applies to x and output only. Row layer * D + direction of a state belongs to that
// layer and direction; direction 1 reads the sequence from its end, and its outputs fill the
// last hidden_size features of output, in the sequence's order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/param.h"
#include "ember/tensor.h"

namespace ember::nn {

/// One layer's weights in one direction: G gates of H units each, stacked in the cell's gate
/// order. weight_ih [G * H, in] (in: input_size for layer 0, D * H above), weight_hh [G * H, H],
/// bias_ih and bias_hh [G * H].
struct RecurrentWeights {
  Param<2> weight_ih;
  Param<2> weight_hh;
  std::optional<Param<1>> bias_ih;
  std::optional<Param<1>> bias_hh;
};

namespace detail {
/// PyTorch's name suffix of the weights at index: "_l<layer>", plus "_reverse" for direction 1.
std::string recurrent_suffix(std::size_t index, bool bidirectional);
}  // namespace detail

/// What Lstm and Gru share: one RecurrentWeights per layer and direction, which a walk over the
/// module (nn::visit) names as PyTorch's state_dict does: weight_ih_l0, weight_hh_l0, bias_ih_l0,
/// bias_hh_l0, weight_ih_l0_reverse, ..., weight_ih_l1, ...
struct RecurrentLayers {
  /// At index layer * D + direction.
  std::vector<RecurrentWeights> weights;
  bool bidirectional = false;
  /// The probability of dropping an element of each layer's output but the last's, in training.
  double dropout = 0.0;
  bool training = true;

  int64_t directions() const { return bidirectional ? 2 : 1; }
  int64_t num_layers() const { return static_cast<int64_t>(weights.size()) / directions(); }
  int64_t input_size() const { return weights.at(0).weight_ih->dims()[1]; }
  int64_t hidden_size() const { return weights.at(0).weight_hh->dims()[1]; }

  /// Lists the weights under their PyTorch names (what EMBER_MODULE does for fixed members).
  template <typename Self, typename Visit>
  static void visit_members(Self& self, Visit&& visit) {
    for (std::size_t i = 0; i < self.weights.size(); ++i) {
      const std::string suffix = detail::recurrent_suffix(i, self.bidirectional);
      auto& w = self.weights[i];
      visit(("weight_ih" + suffix).c_str(), w.weight_ih);
      visit(("weight_hh" + suffix).c_str(), w.weight_hh);
      visit(("bias_ih" + suffix).c_str(), w.bias_ih);
      visit(("bias_hh" + suffix).c_str(), w.bias_hh);
    }
  }
};

/// An LSTM's state: h and c, each [D * num_layers, B, hidden_size].
struct LstmState {
  Tensor<3> h;
  Tensor<3> c;
};
struct LstmOutput {
  Tensor<3> output;  ///< [B, L, D * hidden_size]: the last layer's h at every step
  LstmState state;   ///< after the last step (for direction 1: after the first position)
};

/// Gates i, f, g, o (PyTorch's order), each W_i* x + b_i* + W_h* h + b_h*:
/// c' = sigmoid(f) * c + sigmoid(i) * tanh(g), h' = sigmoid(o) * tanh(c').
struct Lstm : RecurrentLayers {
  static constexpr int64_t kGates = 4;
  static constexpr std::string_view kName = "Lstm";

  /// x [B, L, input_size]; state unset: zeros. InvalidArgument "[Lstm] ..." for an x of another
  /// input size or no steps, or states of another shape.
  LstmOutput forward(const Tensor<3>& x,
                     const std::optional<LstmState>& state = std::nullopt) const;
};

struct GruOutput {
  Tensor<3> output;  ///< [B, L, D * hidden_size]: the last layer's h at every step
  Tensor<3> h;       ///< [D * num_layers, B, hidden_size], after the last step
};

/// Gates r, z, n (PyTorch's order): r = sigmoid(W_ir x + b_ir + W_hr h + b_hr), z likewise,
/// n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), h' = (1 - z) * n + z * h.
struct Gru : RecurrentLayers {
  static constexpr int64_t kGates = 3;
  static constexpr std::string_view kName = "Gru";

  /// x [B, L, input_size]; h unset: zeros. InvalidArgument "[Gru] ..." as Lstm::forward.
  GruOutput forward(const Tensor<3>& x, const std::optional<Tensor<3>>& h = std::nullopt) const;
};

/// How to build an Lstm or a Gru: `nn::LstmConfig{16, 32, 2}.init(device)`. PyTorch's
/// initialization: every weight and bias U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
template <typename M>
struct RecurrentConfig {
  int64_t input_size;
  int64_t hidden_size;
  int64_t num_layers = 1;
  /// Whether the layers have bias_ih and bias_hh.
  bool bias = true;
  /// Dropout on each layer's output but the last's, in training.
  double dropout = 0.0;
  bool bidirectional = false;

  /// InvalidArgument "[Lstm] ..." / "[Gru] ..." for a size or num_layers < 1 or dropout outside
  /// [0, 1).
  M init(const Device& device) const;
};
using LstmConfig = RecurrentConfig<Lstm>;
using GruConfig = RecurrentConfig<Gru>;
extern template struct RecurrentConfig<Lstm>;
extern template struct RecurrentConfig<Gru>;

}  // namespace ember::nn
