// Activation cases (generate.py's activation_cases): every function of ember/activation_functions.h
// with its hyper-parameters, on inputs kept away from the points where its derivative jumps.
// prelu's second input is its per-channel weight, whose gradient is checked too.
#include <string>
#include <utility>

#include "pytorch/pytorch_cases.h"

namespace ember::test {
namespace {

/// A case of one output, a function of the case's first input.
TorchCase unary(std::string name, std::function<TensorHandle(const TensorHandle&)> f) {
  return {std::move(name),
          [f = std::move(f)](const ops::Handles& x) { return ops::Handles{f(x[0])}; }};
}

using Handle = const TensorHandle&;

std::vector<TorchCase> rectifier_cases() {
  return {
      unary("relu", [](Handle x) { return ops::relu(x); }),
      unary("leaky_relu/slope0.2", [](Handle x) { return ops::leaky_relu(x, 0.2); }),
      {"prelu/per_channel",
       [](const ops::Handles& x) { return ops::Handles{ops::prelu(x[0], x[1])}; }},
      unary("elu/alpha0.5", [](Handle x) { return ops::elu(x, 0.5); }),
      unary("selu", [](Handle x) { return ops::selu(x); }),
      unary("celu/alpha1.5", [](Handle x) { return ops::celu(x, 1.5); }),
      unary("hard_sigmoid", [](Handle x) { return ops::hard_sigmoid(x); }),
      unary("hard_swish", [](Handle x) { return ops::hard_swish(x); }),
  };
}

std::vector<TorchCase> smooth_cases() {
  return {
      unary("gelu", [](Handle x) { return ops::gelu(x); }),
      unary("gelu_tanh", [](Handle x) { return ops::gelu_tanh(x); }),
      unary("sigmoid", [](Handle x) { return ops::sigmoid(x); }),
      unary("log_sigmoid", [](Handle x) { return ops::log_sigmoid(x); }),
      unary("silu", [](Handle x) { return ops::silu(x); }),
      unary("softplus/beta2", [](Handle x) { return ops::softplus(x, 2.0); }),
      unary("mish", [](Handle x) { return ops::mish(x); }),
      unary("tanh", [](Handle x) { return ops::tanh(x); }),
  };
}

std::vector<TorchCase> along_dim_cases() {
  return {
      unary("glu/dim1", [](Handle x) { return ops::glu(x, 1); }),
      unary("softmax/dim1", [](Handle x) { return ops::softmax(x, 1); }),
      unary("log_softmax/dim0", [](Handle x) { return ops::log_softmax(x, 0); }),
  };
}

}  // namespace

std::vector<TorchCase> activation_torch_cases() {
  return concat({rectifier_cases(), smooth_cases(), along_dim_cases()});
}

}  // namespace ember::test
