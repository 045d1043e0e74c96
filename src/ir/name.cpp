// ir::name: the user-facing name of each op, as error messages print it.
#include <array>
#include <string>
#include <string_view>

#include "ir/ops.h"

namespace ember::ir {
namespace {

// Each table is indexed by its enum's value; the op table's (ember/ops.def) come from it.
constexpr std::array kUnaryNames = {
#define EMBER_UNARY_OP(Enumerator, name, ...) std::string_view(#name),
#include "ember/ops.def"
};
constexpr std::array kBinaryNames = {
#define EMBER_BINARY_OP(Enumerator, name, ...) std::string_view(#name),
#include "ember/ops.def"
};
// The tensor-scalar forms as the Tensor API names them (maximum and minimum with a scalar are
// its clamp_min and clamp_max).
constexpr std::array kBinaryScalarNames = {
#define EMBER_BINARY_OP(Enumerator, name, scalar_name, ...) std::string_view(#scalar_name),
#include "ember/ops.def"
};
constexpr std::array kBinaryCommutative = {
#define EMBER_BINARY_OP(Enumerator, name, scalar_name, dtypes, commutative, ...) commutative,
#include "ember/ops.def"
};
constexpr std::array kCompareNames = {
#define EMBER_COMPARE_OP(Enumerator, name, ...) std::string_view(#name),
#include "ember/ops.def"
};
constexpr std::array kCompareScalarNames = {
#define EMBER_COMPARE_OP(Enumerator, name, scalar_name) std::string_view(#scalar_name),
#include "ember/ops.def"
};
constexpr std::array kReduceNames = {
#define EMBER_REDUCE_OP(Enumerator, name, ...) std::string_view(#name),
#include "ember/ops.def"
};
constexpr std::array<std::string_view, 4> kCumulativeNames = {"cumsum", "cumprod", "cummax",
                                                              "cummin"};
constexpr std::array kActivationNames = {
#define EMBER_ACTIVATION_OP(Enumerator, name, ...) std::string_view(#name),
#include "ember/ops.def"
};
constexpr std::array<std::string_view, 2> kPoolNames = {"max", "avg"};

static_assert(kCumulativeNames.size() == static_cast<std::size_t>(CumulativeOp::Min) + 1);

/// The name of enumerator e; an op decoded from untrusted bytes may hold a value past the table.
template <typename Enum, std::size_t N>
std::string lookup(const std::array<std::string_view, N>& table, Enum e) {
  const auto index = static_cast<std::size_t>(e);
  return std::string(index < N ? table[index] : "invalid_op");
}

/// Reductions over one dim are named "<op>_dim", except those whose public name has no
/// whole-tensor twin (argmax, argmin, var always take a dim).
bool has_dim_suffix(const Reduce& reduce) {
  return reduce.dim && reduce.op != ReduceOp::ArgMax && reduce.op != ReduceOp::ArgMin &&
         reduce.op != ReduceOp::Var;
}

bool is_commutative(BinaryOp op) {
  const auto index = static_cast<std::size_t>(op);
  return index < kBinaryCommutative.size() && kBinaryCommutative[index];
}

/// The name of the public function that makes o: an integer power is powi_scalar, and value op x
/// of a non-commutative op takes an "r" (rsub_scalar: value - x), so that an error names the
/// function the user called.
std::string binary_scalar_name(const BinaryScalar& o) {
  const bool integer_power = o.op == BinaryOp::Pow && o.value.kind == Scalar::Kind::Int;
  const std::string name = integer_power ? "powi_scalar" : lookup(kBinaryScalarNames, o.op);
  return o.scalar_lhs && !is_commutative(o.op) ? "r" + name : name;
}

struct Namer {
  std::string operator()(const Unary& o) const { return lookup(kUnaryNames, o.op); }
  std::string operator()(const Binary& o) const { return lookup(kBinaryNames, o.op); }
  std::string operator()(const BinaryScalar& o) const { return binary_scalar_name(o); }
  std::string operator()(const Compare& o) const { return lookup(kCompareNames, o.op); }
  std::string operator()(const CompareScalar& o) const { return lookup(kCompareScalarNames, o.op); }
  std::string operator()(const Where&) const { return "where"; }
  std::string operator()(const MaskFill&) const { return "mask_fill"; }
  std::string operator()(const Cast&) const { return "cast"; }
  std::string operator()(const Reduce& o) const {
    return lookup(kReduceNames, o.op) + (has_dim_suffix(o) ? "_dim" : "");
  }
  std::string operator()(const Matmul&) const { return "matmul"; }
  std::string operator()(const Reshape&) const { return "reshape"; }
  std::string operator()(const Permute&) const { return "permute"; }
  std::string operator()(const Flip&) const { return "flip"; }
  std::string operator()(const Expand&) const { return "expand"; }
  std::string operator()(const Slice&) const { return "slice"; }
  std::string operator()(const SliceAssign&) const { return "slice_assign"; }
  std::string operator()(const Cat&) const { return "cat"; }
  std::string operator()(const Select&) const { return "select"; }
  std::string operator()(const SelectAssign&) const { return "select_assign"; }
  std::string operator()(const Gather&) const { return "gather"; }
  std::string operator()(const Scatter&) const { return "scatter"; }
  std::string operator()(const Sort&) const { return "sort"; }
  std::string operator()(const Cumulative& o) const { return lookup(kCumulativeNames, o.op); }
  std::string operator()(const Full&) const { return "full"; }
  std::string operator()(const Arange&) const { return "arange"; }
  std::string operator()(const Random&) const { return "random"; }
  std::string operator()(const Activation& o) const { return lookup(kActivationNames, o.op); }
  std::string operator()(const Softmax& o) const { return o.log ? "log_softmax" : "softmax"; }
  std::string operator()(const SoftmaxGrad& o) const { return (*this)(o.softmax) + "_backward"; }
  std::string operator()(const Conv& o) const {
    return (o.geometry.transposed ? "conv_transpose" : "conv") + spatial(o.geometry.stride);
  }
  std::string operator()(const ConvWeightGrad& o) const {
    return (*this)(Conv{o.geometry}) + "_weight_backward";
  }
  std::string operator()(const Pool& o) const {
    return lookup(kPoolNames, o.op) + "_pool" + spatial(o.kernel);
  }
  std::string operator()(const AdaptivePool& o) const {
    return "adaptive_" + lookup(kPoolNames, o.op) + "_pool" + spatial(o.output_size);
  }
  std::string operator()(const AvgPoolGrad& o) const { return (*this)(o.pool) + "_backward"; }
  std::string operator()(const AdaptiveAvgPoolGrad& o) const {
    return (*this)(o.pool) + "_backward";
  }
  std::string operator()(const Interpolate&) const { return "interpolate"; }
  std::string operator()(const InterpolateGrad&) const { return "interpolate_backward"; }
  std::string operator()(const Attention&) const { return "scaled_dot_product_attention"; }
  std::string operator()(const AttentionGrad&) const {
    return "scaled_dot_product_attention_backward";
  }
  std::string operator()(const LayerNorm& o) const { return o.rms ? "rms_norm" : "layer_norm"; }
  std::string operator()(const LayerNormGrad& o) const { return (*this)(o.norm) + "_backward"; }
  std::string operator()(const CrossEntropy&) const { return "cross_entropy"; }
  std::string operator()(const CrossEntropyGrad&) const { return "cross_entropy_backward"; }

 private:
  /// "1d", "2d", "3d": the spatial rank of an op with one parameter per spatial dim.
  static std::string spatial(const std::vector<int64_t>& per_dim) {
    return std::to_string(per_dim.size()) + "d";
  }
};

}  // namespace

std::string name(const Op& op) {
  return std::visit(Namer{}, op);
}

}  // namespace ember::ir
