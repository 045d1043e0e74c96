// The autocast policy of every op (ir/autocast_policy.h), following torch.autocast's lists:
// products lower, ops that accumulate or need range run in f32, the rest keep their dtypes.
#include "ir/autocast_policy.h"

namespace ember::ir {
namespace {

constexpr AutocastPolicy kLower = AutocastPolicy::Lower;
constexpr AutocastPolicy kF32 = AutocastPolicy::F32;
constexpr AutocastPolicy kKeep = AutocastPolicy::Keep;

/// The wide-range functions: their results (exp) or arguments near their poles (log, recip)
/// leave f16's range or lose bf16's few digits, so PyTorch runs them in f32.
AutocastPolicy unary_policy(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp:
    case UnaryOp::Log:
    case UnaryOp::Log1p:
    case UnaryOp::Logit:
    case UnaryOp::Tan:
    case UnaryOp::Recip:
      return kF32;
    case UnaryOp::Neg:
    case UnaryOp::Abs:
    case UnaryOp::Sign:
    case UnaryOp::Sqrt:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Tanh:
    case UnaryOp::Erf:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Not:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
      return kKeep;
  }
  return kKeep;  // an out-of-range enumerator (decoded from bytes): the safe choice
}

AutocastPolicy binary_policy(BinaryOp op) {
  switch (op) {
    case BinaryOp::Pow:
      return kF32;
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
    case BinaryOp::Maximum:
    case BinaryOp::Minimum:
    case BinaryOp::And:
    case BinaryOp::Or:
    case BinaryOp::Xor:
      return kKeep;
  }
  return kKeep;
}

/// Sums and products accumulate rounding error over the whole reduced extent; max, min and the
/// arg- and logical reductions are exact in any dtype.
AutocastPolicy reduce_policy(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod:
    case ReduceOp::Var:
      return kF32;
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
    case ReduceOp::Any:
    case ReduceOp::All:
      return kKeep;
  }
  return kKeep;
}

AutocastPolicy cumulative_policy(CumulativeOp op) {
  switch (op) {
    case CumulativeOp::Sum:
    case CumulativeOp::Prod:
      return kF32;
    case CumulativeOp::Max:
    case CumulativeOp::Min:
      return kKeep;
  }
  return kKeep;
}

/// Softplus is exp and log (PyTorch's f32 list); the others are bounded or piecewise linear.
AutocastPolicy activation_policy(ActivationOp op) {
  switch (op) {
    case ActivationOp::Softplus:
      return kF32;
    case ActivationOp::Relu:
    case ActivationOp::LeakyRelu:
    case ActivationOp::Gelu:
    case ActivationOp::GeluTanh:
    case ActivationOp::Sigmoid:
    case ActivationOp::LogSigmoid:
    case ActivationOp::Silu:
    case ActivationOp::Mish:
    case ActivationOp::Elu:
    case ActivationOp::Selu:
    case ActivationOp::Celu:
    case ActivationOp::HardSigmoid:
    case ActivationOp::HardSwish:
      return kKeep;
  }
  return kKeep;
}

struct Policy {
  AutocastPolicy operator()(const Unary& o) const { return unary_policy(o.op); }
  AutocastPolicy operator()(const Binary& o) const { return binary_policy(o.op); }
  AutocastPolicy operator()(const BinaryScalar& o) const { return binary_policy(o.op); }
  AutocastPolicy operator()(const Compare&) const { return kKeep; }
  AutocastPolicy operator()(const CompareScalar&) const { return kKeep; }
  AutocastPolicy operator()(const Where&) const { return kKeep; }
  AutocastPolicy operator()(const MaskFill&) const { return kKeep; }
  AutocastPolicy operator()(const Cast&) const { return kKeep; }
  AutocastPolicy operator()(const Reduce& o) const { return reduce_policy(o.op); }
  AutocastPolicy operator()(const Matmul&) const { return kLower; }
  AutocastPolicy operator()(const Reshape&) const { return kKeep; }
  AutocastPolicy operator()(const Permute&) const { return kKeep; }
  AutocastPolicy operator()(const Flip&) const { return kKeep; }
  AutocastPolicy operator()(const Expand&) const { return kKeep; }
  AutocastPolicy operator()(const Slice&) const { return kKeep; }
  AutocastPolicy operator()(const SliceAssign&) const { return kKeep; }
  AutocastPolicy operator()(const Cat&) const { return kKeep; }
  AutocastPolicy operator()(const Select&) const { return kKeep; }
  AutocastPolicy operator()(const SelectAssign&) const { return kKeep; }
  AutocastPolicy operator()(const Gather&) const { return kKeep; }
  AutocastPolicy operator()(const Scatter&) const { return kKeep; }
  AutocastPolicy operator()(const Sort&) const { return kKeep; }
  AutocastPolicy operator()(const Cumulative& o) const { return cumulative_policy(o.op); }
  AutocastPolicy operator()(const Full&) const { return kKeep; }
  AutocastPolicy operator()(const Arange&) const { return kKeep; }
  AutocastPolicy operator()(const Random&) const { return kKeep; }
  AutocastPolicy operator()(const Activation& o) const { return activation_policy(o.op); }
  AutocastPolicy operator()(const Softmax&) const { return kF32; }
  AutocastPolicy operator()(const Conv&) const { return kLower; }
  AutocastPolicy operator()(const Pool&) const { return kKeep; }
  AutocastPolicy operator()(const AdaptivePool&) const { return kKeep; }
  AutocastPolicy operator()(const Interpolate&) const { return kKeep; }
  // Its products lower as matmul's do; the kernels accumulate and take the softmax in f32.
  AutocastPolicy operator()(const Attention&) const { return kLower; }
  // PyTorch's CUDA autocast runs layer_norm and cross_entropy in f32 (its fp32 list), as the
  // composites' reductions run here.
  AutocastPolicy operator()(const LayerNorm&) const { return kF32; }
  AutocastPolicy operator()(const CrossEntropy&) const { return kF32; }
  // The gradient ops run only in backward, which keeps the forward ops' dtypes (PyTorch's rule).
  AutocastPolicy operator()(const ConvWeightGrad&) const { return kKeep; }
  AutocastPolicy operator()(const AvgPoolGrad&) const { return kKeep; }
  AutocastPolicy operator()(const AdaptiveAvgPoolGrad&) const { return kKeep; }
  AutocastPolicy operator()(const InterpolateGrad&) const { return kKeep; }
  AutocastPolicy operator()(const AttentionGrad&) const { return kKeep; }
  AutocastPolicy operator()(const LayerNormGrad&) const { return kKeep; }
  AutocastPolicy operator()(const CrossEntropyGrad&) const { return kKeep; }
  AutocastPolicy operator()(const SoftmaxGrad&) const { return kKeep; }
};

}  // namespace

AutocastPolicy autocast_policy(const Op& op) {
  return std::visit(Policy{}, op);
}

}  // namespace ember::ir
