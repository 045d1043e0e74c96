#include "op_workloads.h"

#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>

#include "ember/ember.h"
#include "ember/nn/layers.h"
#include "ember/optim/optim.h"
#include "support/pattern.h"

namespace ember::bench {

namespace {

constexpr double kGeluCube = 0.044715;
const double kGeluScale = std::sqrt(2.0 / std::numbers::pi);
constexpr double kMlpLearningRate = 0.01;

void check_rank(const OpSpec& spec, std::size_t rank) {
  if (spec.shape.size() != rank)
    throw InvalidArgument("[op_bench] " + spec.op + " needs a shape of " + std::to_string(rank) +
                          " dims, got " + std::to_string(spec.shape.size()));
}

/// The pattern input of the given seed, in spec.dtype.
TensorHandle input(const OpSpec& spec, const Shape& shape, int64_t seed, const Device& device) {
  return ops::cast(pattern(shape, seed, device), spec.dtype);
}

/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in nine primitive ops, in the order
/// bench/peer_torch/ops.py's gelu runs them.
TensorHandle gelu(const TensorHandle& x) {
  const TensorHandle cube = ops::mul(ops::mul(x, x), x);
  const TensorHandle inner =
      ops::mul_scalar(ops::add(x, ops::mul_scalar(cube, kGeluCube)), kGeluScale);
  return ops::mul(ops::mul_scalar(x, 0.5), ops::add_scalar(ops::tanh(inner), 1.0));
}

Step elementwise(const OpSpec& spec, const Device& device) {
  const Shape shape(spec.shape);
  const TensorHandle a = input(spec, shape, 0, device);
  if (spec.op == "add" || spec.op == "mul") {
    const TensorHandle b = input(spec, shape, 1, device);
    if (spec.op == "add") return [a, b] { return ops::add(a, b); };
    return [a, b] { return ops::mul(a, b); };
  }
  if (spec.op == "exp") return [a] { return ops::exp(a); };
  if (spec.op == "tanh") return [a] { return ops::tanh(a); };
  // ember has no copy op; cat of one tensor is one (cuda: one cuMemcpyDtoDAsync).
  if (spec.op == "copy") return [a] { return ops::cat({a}, 0); };
  // Activations, each one op (and one formula, ir/formulas.h).
  if (spec.op == "sigmoid") return [a] { return ops::sigmoid(a); };
  if (spec.op == "gelu_erf") return [a] { return ops::gelu(a); };
  if (spec.op == "mish") return [a] { return ops::mish(a); };
  return [a] { return gelu(a); };
}

/// f(x) of an op of the bandwidth-bound family on its input x (spec.shape), made from seeds past
/// x's: along spec.dim, or over the last dim (the norms, with weight and bias of that size;
/// cross_entropy of logits [rows, C] and targets r mod C, mean over the rows).
std::function<TensorHandle(const TensorHandle&)> along_dim_op(const std::string& op,
                                                              const OpSpec& spec,
                                                              const Device& device) {
  const int64_t dim = spec.dim;
  const int64_t last = spec.shape.back();
  if (op == "sum") return [dim](const TensorHandle& x) { return ops::sum_dim(x, dim); };
  if (op == "argmax") return [dim](const TensorHandle& x) { return ops::argmax(x, dim); };
  if (op == "argmin") return [dim](const TensorHandle& x) { return ops::argmin(x, dim); };
  if (op == "max") return [dim](const TensorHandle& x) { return ops::max_dim(x, dim); };
  if (op == "min") return [dim](const TensorHandle& x) { return ops::min_dim(x, dim); };
  if (op == "softmax") return [dim](const TensorHandle& x) { return ops::softmax(x, dim); };
  if (op == "log_softmax") return [dim](const TensorHandle& x) { return ops::log_softmax(x, dim); };
  const TensorHandle weight = input(spec, Shape{last}, 1, device);
  if (op == "layer_norm") {
    const TensorHandle bias = input(spec, Shape{last}, 2, device);
    return [weight, bias, last](const TensorHandle& x) {
      return ops::layer_norm(x, {last}, weight, bias, 1e-5);
    };
  }
  if (op == "rms_norm") {
    return [weight, last](const TensorHandle& x) { return ops::rms_norm(x, {last}, weight, 1e-6); };
  }
  check_rank(spec, 2);
  const TensorHandle targets =
      ops::remainder_scalar(ops::arange(0, spec.shape[0], 1, device), last);
  return [targets](const TensorHandle& x) {
    return ops::cross_entropy(x, targets, std::nullopt, module::Reduction::Mean, 0.0);
  };
}

/// The op along a dim, or with "_backward", its forward and backward from a seed of ones (the
/// gradient of the input; PyTorch's peer passes ones as the output's gradient).
Step along_dim(const OpSpec& spec, const Device& device) {
  constexpr std::string_view kBackward = "_backward";
  const bool backward = spec.op.ends_with(kBackward);
  const std::string op = backward ? spec.op.substr(0, spec.op.size() - kBackward.size()) : spec.op;
  const Device on = backward ? device.autodiff() : device;
  const TensorHandle a = input(spec, Shape(spec.shape), 0, on);
  const auto f = along_dim_op(op, spec, on);
  if (!backward) return [a, f] { return f(a); };
  const TensorHandle x = ops::require_grad(a);
  return [x, f] { return *ops::backward(f(x)).get(x); };
}

bool is_along_dim(const std::string& op) {
  for (const char* name :
       {"sum", "argmax", "argmin", "max", "min", "softmax", "log_softmax", "layer_norm", "rms_norm",
        "cross_entropy", "softmax_backward", "log_softmax_backward", "layer_norm_backward",
        "rms_norm_backward", "cross_entropy_backward"}) {
    if (op == name) return true;
  }
  return false;
}

Step matmul(const OpSpec& spec, const Device& device) {
  check_rank(spec, 3);
  const int64_t m = spec.shape[0], k = spec.shape[1], n = spec.shape[2];
  const TensorHandle a = input(spec, Shape{m, k}, 0, device);
  const TensorHandle b = input(spec, Shape{k, n}, 1, device);
  return [a, b] { return ops::matmul(a, b); };
}

Step spatial(const OpSpec& spec, const Device& device) {
  check_rank(spec, 4);
  const Tensor<4> x(input(spec, Shape(spec.shape), 0, device));
  if (spec.op == "max_pool2d") {
    const module::MaxPoolOptions options{.kernel_size = {spec.kernel}};
    return [x, options] { return module::max_pool2d(x, options).handle(); };
  }
  const Tensor<4> weight(
      input(spec, Shape{spec.out_channels, spec.shape[1], spec.kernel, spec.kernel}, 1, device));
  const module::ConvOptions options{.padding = {spec.padding}};
  return [x, weight, options] { return module::conv2d(x, weight, std::nullopt, options).handle(); };
}

nn::Linear linear(int64_t in, int64_t out, const Device& device) {
  return nn::LinearConfig{in, out}.init(device);
}

/// linear relu linear relu linear.
struct Mlp3 {
  nn::Linear fc1, fc2, fc3;
  EMBER_MODULE(fc1, fc2, fc3)

  Tensor<2> forward(const Tensor<2>& x) const {
    const Tensor<2> h = activation::relu(fc2.forward(activation::relu(fc1.forward(x))));
    return fc3.forward(h);
  }
};

/// One SGD step per call on a fixed batch: input pattern [batch, in], targets i mod out.
class MlpTraining {
 public:
  /// spec.shape is [batch, in, hidden1, hidden2, out].
  MlpTraining(const OpSpec& spec, const Device& device)
      : model_{linear(spec.shape[1], spec.shape[2], device),
               linear(spec.shape[2], spec.shape[3], device),
               linear(spec.shape[3], spec.shape[4], device)},
        input_(pattern(Shape{spec.shape[0], spec.shape[1]}, 0, device)),
        targets_(ops::remainder_scalar(ops::arange(0, spec.shape[0], 1, device), spec.shape[4])) {}

  TensorHandle step() {
    const Tensor<1> loss = module::cross_entropy(model_.forward(input_), targets_);
    const Gradients grads = loss.backward();
    sgd_.step(model_, optim::GradientsParams::from(model_, grads), kMlpLearningRate);
    return loss.detach().handle();
  }

 private:
  Mlp3 model_;
  optim::Sgd sgd_ = optim::SgdConfig{}.init();
  Tensor<2> input_;
  Tensor<1, Int> targets_;
};

/// scaled_dot_product_attention of q, k, v [B, H, L, E] (self-attention: S = L), no mask. With
/// attention_backward, each step also takes the gradients of q, k and v of sum(out * g) on the
/// autodiff device (PyTorch's peer passes g to backward) and returns q's.
Step attention(const OpSpec& spec, const Device& device) {
  check_rank(spec, 4);
  const Shape shape(spec.shape);
  const bool backward = spec.op == "attention_backward";
  const Device on = backward ? device.autodiff() : device;
  const auto make = [&](int64_t seed) {
    const TensorHandle x = input(spec, shape, seed, on);
    return backward ? ops::require_grad(x) : x;
  };
  const TensorHandle q = make(0);
  const TensorHandle k = make(1);
  const TensorHandle v = make(2);
  const auto attend = [q, k, v] {
    return ops::scaled_dot_product_attention(q, k, v, std::nullopt, false, 0.0, std::nullopt);
  };
  if (!backward) return attend;
  const TensorHandle g = input(spec, shape, 3, device);
  return [attend, q, g] { return *ops::backward(ops::sum(ops::mul(attend(), g))).get(q); };
}

/// A fresh tensor of spec.shape in spec.dtype per step, each with the next key of the device's
/// stream: random (the default distribution, u on [0, 1)), uniform (on [-3, 5)), normal (0, 1),
/// bernoulli (p = 0.9, dropout's mask for p = 0.1).
Step random_tensor(const OpSpec& spec, const Device& device) {
  const std::string& op = spec.op;
  const Distribution d = op == "uniform"     ? Distribution::uniform(-3.0, 5.0)
                         : op == "normal"    ? Distribution::normal(0.0, 1.0)
                         : op == "bernoulli" ? Distribution::bernoulli(0.9)
                                             : Distribution::Default;
  const Shape shape(spec.shape);
  const TensorCreationOptions options = TensorCreationOptions(device).with_dtype(spec.dtype);
  return [shape, d, options] { return ops::random(shape, d, options, TensorKind::Float); };
}

}  // namespace

Step make_step(const OpSpec& spec, const Device& device) {
  const std::string& op = spec.op;
  if (op == "add" || op == "mul" || op == "exp" || op == "tanh" || op == "gelu" ||
      op == "sigmoid" || op == "gelu_erf" || op == "mish" || op == "copy")
    return elementwise(spec, device);
  if (is_along_dim(op)) return along_dim(spec, device);
  if (op == "matmul") return matmul(spec, device);
  if (op == "random" || op == "uniform" || op == "normal" || op == "bernoulli")
    return random_tensor(spec, device);
  if (op == "conv2d" || op == "max_pool2d") return spatial(spec, device);
  if (op == "attention" || op == "attention_backward") return attention(spec, device);
  if (op == "mlp_train") {
    check_rank(spec, 5);
    const Device autocast =
        spec.dtype == DType::F32 ? device : device.autocast(to_float_dtype(spec.dtype));
    auto training = std::make_shared<MlpTraining>(spec, autocast.autodiff());
    return [training] { return training->step(); };
  }
  throw InvalidArgument("[op_bench] unknown op '" + op + "'");
}

}  // namespace ember::bench
