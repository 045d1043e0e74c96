// Activations and softmax (Float only), each on values that reach its distinct regions: both
// sides of relu's kink, beyond hard_sigmoid's ±3, past softplus's linear threshold.
#include <string>
#include <utility>

#include "support/op_cases.h"

namespace ember::test {
namespace {

/// Wide enough for beta * x to pass softplus's threshold of 20 and for exp(-x) to overflow f16
/// if computed naively.
const ValueSpec kWide{-25.0, 25.0};
/// Past the ±3 where the hard activations saturate.
const ValueSpec kPastThree{-5.0, 5.0};

/// c, marked elementwise (op_table.h).
OpCase elementwise(OpCase c) {
  c.elementwise = true;
  return c;
}

OpCase activation(std::string name, UnaryFn fn, ValueSpec values = {}) {
  return elementwise(
      make_case(std::move(name), DTypes::Float, {drawn(kShape, values)}, run_unary(fn)));
}

/// fn(x, args.real(key)): an activation with one real parameter.
using ParameterFn = TensorHandle (*)(const TensorHandle&, double);
OpCase with_parameter(std::string name, ParameterFn fn, std::string key, double value,
                      ValueSpec values = {}) {
  OpRun run = [fn, key](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{fn(in.at(0), args.real(key))};
  };
  return elementwise(make_case(std::move(name), DTypes::Float, {drawn(kShape, values)},
                               std::move(run), fixed_args({{key, value}})));
}

/// prelu with a weight of weight_size slopes (1, or x's 3 channels).
OpCase prelu_case(std::string name, int64_t weight_size) {
  return make_case(std::move(name), DTypes::Float,
                   {drawn(kShape), drawn({weight_size}, {0.0, 1.0})}, run_binary(ops::prelu));
}

OpCase along_dim(std::string name, DimFn fn, int64_t dim, ValueSpec values = {}) {
  return make_case(std::move(name), DTypes::Float, {drawn(kShape, values)}, run_dim(fn),
                   fixed_args({{"dim", dim}}));
}

}  // namespace

std::vector<OpCase> activation_cases() {
  return {
      activation("relu", ops::relu),
      with_parameter("leaky_relu", ops::leaky_relu, "negative_slope", 0.2),
      prelu_case("prelu", 3),
      prelu_case("prelu/shared", 1),
      activation("gelu", ops::gelu),
      activation("gelu_tanh", ops::gelu_tanh),
      activation("sigmoid", ops::sigmoid, kWide),
      activation("log_sigmoid", ops::log_sigmoid, kWide),
      activation("silu", ops::silu),
      with_parameter("softplus", ops::softplus, "beta", 1.0, kWide),
      with_parameter("softplus/beta", ops::softplus, "beta", 2.0, {-12.0, 12.0}),
      activation("mish", ops::mish),
      with_parameter("elu", ops::elu, "alpha", 0.5),
      activation("selu", ops::selu),
      with_parameter("celu", ops::celu, "alpha", 2.0),
      activation("hard_sigmoid", ops::hard_sigmoid, kPastThree),
      activation("hard_swish", ops::hard_swish, kPastThree),
      along_dim("glu", ops::glu, -1),
      along_dim("softmax", ops::softmax, 1, {-10.0, 10.0}),
      along_dim("softmax/last", ops::softmax, -1),
      along_dim("log_softmax", ops::log_softmax, -1, {-10.0, 10.0}),
      along_dim("log_softmax/first", ops::log_softmax, 0),
  };
}

}  // namespace ember::test
