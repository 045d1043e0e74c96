// Each ir op as ONNX nodes. An op without an ONNX form here is named in an error before the
// model is written; every alternative of ir::Op is either written or listed as such (a new op
// does not compile until it is one or the other).
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ember/error.h"
#include "graph/onnx/onnx_writer.h"
#include "ir/fused_rows.h"
#include "ir/rules.h"

namespace ember::detail {
namespace {

/// What writing one op node needs.
struct OpContext {
  OnnxWriter& writer;
  const GraphImpl& graph;
  std::size_t index;
  const OnnxOpNames& names;
  const std::vector<bool>& used;

  const GraphNode& node() const { return graph.nodes[index]; }
  const ir::TensorMeta& input_meta(std::size_t k) const { return graph.meta(node().inputs[k]); }
  const ir::TensorMeta& output_meta(std::size_t k) const { return node().outputs[k]; }

  /// A node of op_type from the op's inputs to its first output.
  ::onnx::NodeProto& simple(std::string_view op_type) const {
    return writer.node(op_type, names.inputs, {names.outputs[0]});
  }

  [[noreturn]] void unsupported(std::string_view why = "") const {
    throw InvalidArgument(ir::rules::concat("[onnx::to_onnx] op '", ir::name(*node().op),
                                            "' (node %", index, ") has no ONNX form here", why));
  }
};

/// Looks key up in a table of {ir enumerator, ONNX op type}.
template <typename Enum, std::size_t N>
std::optional<std::string_view> lookup(
    const std::array<std::pair<Enum, std::string_view>, N>& table, Enum key) {
  const auto found = std::ranges::find(table, key, &std::pair<Enum, std::string_view>::first);
  if (found == table.end()) return std::nullopt;
  return found->second;
}

constexpr std::array<std::pair<ir::UnaryOp, std::string_view>, 17> kUnary = {{
    {ir::UnaryOp::Neg, "Neg"},
    {ir::UnaryOp::Abs, "Abs"},
    {ir::UnaryOp::Sign, "Sign"},
    {ir::UnaryOp::Exp, "Exp"},
    {ir::UnaryOp::Log, "Log"},
    {ir::UnaryOp::Sqrt, "Sqrt"},
    {ir::UnaryOp::Sin, "Sin"},
    {ir::UnaryOp::Cos, "Cos"},
    {ir::UnaryOp::Tan, "Tan"},
    {ir::UnaryOp::Tanh, "Tanh"},
    {ir::UnaryOp::Erf, "Erf"},
    {ir::UnaryOp::Recip, "Reciprocal"},
    {ir::UnaryOp::Floor, "Floor"},
    {ir::UnaryOp::Ceil, "Ceil"},
    {ir::UnaryOp::Not, "Not"},
    {ir::UnaryOp::IsNan, "IsNaN"},
    {ir::UnaryOp::IsInf, "IsInf"},
}};

constexpr std::array<std::pair<ir::BinaryOp, std::string_view>, 10> kBinary = {{
    {ir::BinaryOp::Add, "Add"},
    {ir::BinaryOp::Sub, "Sub"},
    {ir::BinaryOp::Mul, "Mul"},
    {ir::BinaryOp::Div, "Div"},
    {ir::BinaryOp::Pow, "Pow"},
    {ir::BinaryOp::Maximum, "Max"},
    {ir::BinaryOp::Minimum, "Min"},
    {ir::BinaryOp::And, "And"},
    {ir::BinaryOp::Or, "Or"},
    {ir::BinaryOp::Xor, "Xor"},
}};

constexpr std::array<std::pair<ir::CompareOp, std::string_view>, 5> kCompare = {{
    {ir::CompareOp::Equal, "Equal"},
    {ir::CompareOp::Greater, "Greater"},
    {ir::CompareOp::GreaterEqual, "GreaterOrEqual"},
    {ir::CompareOp::Lower, "Less"},
    {ir::CompareOp::LowerEqual, "LessOrEqual"},
}};

constexpr std::array<std::pair<ir::ReduceOp, std::string_view>, 7> kReduce = {{
    {ir::ReduceOp::Sum, "ReduceSum"},
    {ir::ReduceOp::Mean, "ReduceMean"},
    {ir::ReduceOp::Prod, "ReduceProd"},
    {ir::ReduceOp::Max, "ReduceMax"},
    {ir::ReduceOp::Min, "ReduceMin"},
    {ir::ReduceOp::ArgMax, "ArgMax"},
    {ir::ReduceOp::ArgMin, "ArgMin"},
}};

/// Activations that are one ONNX op with at most an alpha attribute.
constexpr std::array<std::pair<ir::ActivationOp, std::string_view>, 6> kActivation = {{
    {ir::ActivationOp::Relu, "Relu"},
    {ir::ActivationOp::Sigmoid, "Sigmoid"},
    {ir::ActivationOp::Selu, "Selu"},
    {ir::ActivationOp::HardSwish, "HardSwish"},
    {ir::ActivationOp::LeakyRelu, "LeakyRelu"},
    {ir::ActivationOp::Elu, "Elu"},
}};

/// The ONNX op of an enumerated ir op, or the op refused.
template <typename Enum, std::size_t N>
std::string_view onnx_op_of(const OpContext& c,
                            const std::array<std::pair<Enum, std::string_view>, N>& table,
                            Enum key) {
  const std::optional<std::string_view> op = lookup(table, key);
  if (!op) c.unsupported();
  return *op;
}

/// A compare of lhs and rhs (names) into out: NotEqual is Not of Equal.
void write_compare(const OpContext& c, ir::CompareOp op, std::string lhs, std::string rhs) {
  if (op == ir::CompareOp::NotEqual) {
    const std::string equal = c.writer.fresh("equal");
    c.writer.node("Equal", {std::move(lhs), std::move(rhs)}, {equal});
    c.writer.node("Not", {equal}, {c.names.outputs[0]});
    return;
  }
  c.writer.node(onnx_op_of(c, kCompare, op), {std::move(lhs), std::move(rhs)},
                {c.names.outputs[0]});
}

/// A shape for Reshape: of a batched value, dim 0 is left for ONNX to infer (-1), the rest of
/// the shape being fixed, so that it takes the batch along. Note: right where the batch goes to
/// dim 0 ([B, L, D] to [B * L, D] and back), not where a reshape moves it elsewhere.
std::vector<int64_t> reshape_dims(const OpContext& c, const Shape& shape) {
  std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
  if (!dims.empty() && c.writer.batched(c.node().inputs[0])) dims[0] = -1;
  return dims;
}

void write(const OpContext& c, const ir::Unary& op) {
  c.simple(onnx_op_of(c, kUnary, op.op));
}
void write(const OpContext& c, const ir::Binary& op) {
  c.simple(onnx_op_of(c, kBinary, op.op));
}
void write(const OpContext& c, const ir::BinaryScalar& op) {
  const std::string_view type = onnx_op_of(c, kBinary, op.op);
  std::string x = c.names.inputs[0];
  std::string s = c.writer.scalar(op.value, c.input_meta(0).dtype);
  if (op.scalar_lhs) std::swap(x, s);
  c.writer.node(type, {std::move(x), std::move(s)}, {c.names.outputs[0]});
}
void write(const OpContext& c, const ir::Compare& op) {
  write_compare(c, op.op, c.names.inputs[0], c.names.inputs[1]);
}
void write(const OpContext& c, const ir::CompareScalar& op) {
  write_compare(c, op.op, c.names.inputs[0], c.writer.scalar(op.value, c.input_meta(0).dtype));
}
void write(const OpContext& c, const ir::Where&) {
  c.simple("Where");
}
void write(const OpContext& c, const ir::MaskFill& op) {
  c.writer.node(
      "Where",
      {c.names.inputs[1], c.writer.scalar(op.value, c.input_meta(0).dtype), c.names.inputs[0]},
      {c.names.outputs[0]});
}
void write(const OpContext& c, const ir::Cast& op) {
  set_int(c.simple("Cast"), "to", onnx_type(op.dtype));
}
/// A reduction of input into output: along dim (kept), or over everything (ember's result [1]:
/// ONNX's keepdims=0 result, a scalar, reshaped). The axes are an input from opset 18 on (and
/// always for ReduceSum), an attribute before.
void write_reduce(const OpContext& c, std::string_view type, std::string input,
                  std::optional<int64_t> dim, std::string output) {
  const std::string reduced = dim ? output : c.writer.fresh("reduced");
  std::vector<std::string> inputs = {std::move(input)};
  const std::vector<int64_t> axes = dim ? std::vector<int64_t>{*dim} : std::vector<int64_t>{};
  const bool axes_as_input = type == "ReduceSum" || c.writer.options().opset >= 18;
  if (axes_as_input && dim) inputs.push_back(c.writer.int64s(axes));
  ::onnx::NodeProto& node = c.writer.node(type, std::move(inputs), {reduced});
  if (!axes_as_input && dim) set_ints(node, "axes", axes);
  set_int(node, "keepdims", dim ? 1 : 0);
  if (!dim) {
    const std::array<int64_t, 1> one = {1};
    c.writer.node("Reshape", {reduced, c.writer.int64s(one)}, {std::move(output)});
  }
}

/// Var along a dim: the mean of the squared deviations, over n - correction.
void write_var(const OpContext& c, const ir::Reduce& op) {
  if (!op.dim) c.unsupported(" without a dim");
  const std::string& x = c.names.inputs[0];
  const std::string mean = c.writer.fresh("mean");
  write_reduce(c, "ReduceMean", x, op.dim, mean);
  const std::string centered = c.writer.fresh("centered");
  c.writer.node("Sub", {x, mean}, {centered});
  const std::string squared = c.writer.fresh("squared");
  c.writer.node("Mul", {centered, centered}, {squared});
  const std::string sum = c.writer.fresh("sum");
  write_reduce(c, "ReduceSum", squared, op.dim, sum);
  const ir::TensorMeta& in = c.input_meta(0);
  const auto n = static_cast<double>(in.shape.dims()[static_cast<std::size_t>(*op.dim)]);
  c.writer.node("Div", {sum, c.writer.scalar(n - static_cast<double>(op.correction), in.dtype)},
                {c.names.outputs[0]});
}

void write(const OpContext& c, const ir::Reduce& op) {
  if (op.op == ir::ReduceOp::Var) return write_var(c, op);
  const std::string_view type = onnx_op_of(c, kReduce, op.op);
  if (op.op != ir::ReduceOp::ArgMax && op.op != ir::ReduceOp::ArgMin)
    return write_reduce(c, type, c.names.inputs[0], op.dim, c.names.outputs[0]);
  if (!op.dim || op.index_dtype != DType::I64) c.unsupported(" without a dim or i64");
  ::onnx::NodeProto& node = c.simple(type);
  set_int(node, "axis", *op.dim);
  set_int(node, "keepdims", 1);
}
void write(const OpContext& c, const ir::Matmul&) {
  c.simple("MatMul");
}
void write(const OpContext& c, const ir::Reshape& op) {
  c.writer.node("Reshape", {c.names.inputs[0], c.writer.int64s(reshape_dims(c, op.shape))},
                {c.names.outputs[0]});
}
void write(const OpContext& c, const ir::Permute& op) {
  set_ints(c.simple("Transpose"), "perm", op.axes);
}
void write(const OpContext& c, const ir::Expand& op) {
  // ONNX's Expand broadcasts both ways: a dim of 1 keeps the input's (a batched one's dim 0).
  std::vector<int64_t> dims(op.shape.dims().begin(), op.shape.dims().end());
  if (c.writer.batched(c.node().inputs[0])) dims[0] = 1;
  c.writer.node("Expand", {c.names.inputs[0], c.writer.int64s(dims)}, {c.names.outputs[0]});
}
void write(const OpContext& c, const ir::Slice& op) {
  std::vector<int64_t> starts, ends, axes, steps;
  for (std::size_t d = 0; d < op.ranges.size(); ++d) {
    starts.push_back(op.ranges[d].start);
    ends.push_back(op.ranges[d].end);
    axes.push_back(static_cast<int64_t>(d));
    steps.push_back(op.ranges[d].step);
  }
  c.writer.node("Slice",
                {c.names.inputs[0], c.writer.int64s(starts), c.writer.int64s(ends),
                 c.writer.int64s(axes), c.writer.int64s(steps)},
                {c.names.outputs[0]});
}
void write(const OpContext& c, const ir::Cat& op) {
  set_int(c.simple("Concat"), "axis", op.dim);
}
void write(const OpContext& c, const ir::Select& op) {
  set_int(c.simple("Gather"), "axis", op.dim);
}
void write(const OpContext& c, const ir::Gather& op) {
  set_int(c.simple("GatherElements"), "axis", op.dim);
}
void write(const OpContext& c, const ir::Full& op) {
  const std::string value = c.writer.scalar(op.value, op.dtype);
  const std::vector<int64_t> dims(op.shape.dims().begin(), op.shape.dims().end());
  // Expand of the scalar: the model holds one element, not the whole tensor.
  c.writer.node("Expand", {value, c.writer.int64s(dims)}, {c.names.outputs[0]});
}
void write(const OpContext& c, const ir::Arange& op) {
  c.writer.node(
      "Range",
      {c.writer.scalar(Scalar(op.start), op.dtype), c.writer.scalar(Scalar(op.end), op.dtype),
       c.writer.scalar(Scalar(op.step), op.dtype)},
      {c.names.outputs[0]});
}
/// GELU below opset 20 (which has it as an op): x * (erf(x / sqrt(2)) + 1) / 2.
void write_erf_gelu(const OpContext& c) {
  const std::string& x = c.names.inputs[0];
  const DType dtype = c.input_meta(0).dtype;
  const std::string scaled = c.writer.fresh("scaled");
  c.writer.node("Div", {x, c.writer.scalar(std::sqrt(2.0), dtype)}, {scaled});
  const std::string erf = c.writer.fresh("erf");
  c.writer.node("Erf", {scaled}, {erf});
  const std::string plus_one = c.writer.fresh("plus_one");
  c.writer.node("Add", {erf, c.writer.scalar(1.0, dtype)}, {plus_one});
  const std::string product = c.writer.fresh("product");
  c.writer.node("Mul", {x, plus_one}, {product});
  c.writer.node("Mul", {product, c.writer.scalar(0.5, dtype)}, {c.names.outputs[0]});
}

void write(const OpContext& c, const ir::Activation& op) {
  if (op.op == ir::ActivationOp::Gelu || op.op == ir::ActivationOp::GeluTanh) {
    if (c.writer.options().opset >= 20) {
      set_string(c.simple("Gelu"), "approximate",
                 op.op == ir::ActivationOp::Gelu ? "none" : "tanh");
      return;
    }
    if (op.op == ir::ActivationOp::GeluTanh) c.unsupported(" below opset 20");
    return write_erf_gelu(c);
  }
  if (op.op == ir::ActivationOp::Silu) {  // x * sigmoid(x)
    const std::string sigmoid = c.writer.fresh("sigmoid");
    c.writer.node("Sigmoid", {c.names.inputs[0]}, {sigmoid});
    c.writer.node("Mul", {c.names.inputs[0], sigmoid}, {c.names.outputs[0]});
    return;
  }
  ::onnx::NodeProto& node = c.simple(onnx_op_of(c, kActivation, op.op));
  if (op.op == ir::ActivationOp::LeakyRelu || op.op == ir::ActivationOp::Elu)
    set_float(node, "alpha", op.alpha);
}
void write(const OpContext& c, const ir::Softmax& op) {
  set_int(c.simple(op.log ? "LogSoftmax" : "Softmax"), "axis", op.dim);
}
/// LayerNormalization over the last dim (opset 17). Its Scale is not optional: ones without a
/// weight. Its Mean and InvStdDev keep the normalized dim ([M, 1]); ember's are [M].
void write(const OpContext& c, const ir::LayerNorm& op) {
  if (op.rms) c.unsupported(" (rms_norm is written as its composite)");
  const ir::TensorMeta& x = c.input_meta(0);
  std::vector<std::string> inputs{c.names.inputs[0]};
  inputs.push_back(op.weight ? c.names.inputs[1]
                             : c.writer.initializer(TensorData(
                                   std::vector<double>(static_cast<std::size_t>(x.shape[1]), 1.0),
                                   Shape{x.shape[1]}, x.dtype)));
  if (op.bias) inputs.push_back(c.names.inputs.back());
  std::vector<std::string> outputs{c.names.outputs[0]};
  for (std::size_t k = 1; k < 3; ++k)
    outputs.push_back(c.used[k] ? c.writer.fresh("stat") : "");
  set_float(c.writer.node("LayerNormalization", std::move(inputs), outputs), "epsilon", op.eps);
  for (std::size_t k = 1; k < 3; ++k) {
    if (c.used[k])
      c.writer.node("Reshape", {outputs[k], c.writer.int64s(std::array<int64_t, 1>{-1})},
                    {c.names.outputs[k]});
  }
}
void write(const OpContext& c, const ir::Conv& op) {
  const ir::ConvGeometry& g = op.geometry;
  // ONNX's ConvTranspose takes the weight as ember's transposed convolution does, [C_in,
  // C_out / groups, *kernel], and its output_padding likewise adds to the end of each dim.
  ::onnx::NodeProto& node = c.simple(g.transposed ? "ConvTranspose" : "Conv");
  if (g.transposed) set_ints(node, "output_padding", g.output_padding);
  const auto& weight = c.input_meta(1).shape.dims();
  set_ints(node, "kernel_shape", std::vector<int64_t>(weight.begin() + 2, weight.end()));
  set_ints(node, "strides", g.stride);
  std::vector<int64_t> pads = g.padding;
  pads.insert(pads.end(), g.padding.begin(), g.padding.end());  // begins, then ends
  set_ints(node, "pads", pads);
  set_ints(node, "dilations", g.dilation);
  set_int(node, "group", g.groups);
}
void write(const OpContext& c, const ir::Pool& op) {
  if (c.used.size() > 1 && c.used[1])
    c.unsupported(" with its indices (ONNX numbers them otherwise)");
  if (op.divisor_override) c.unsupported(" with a divisor_override");
  const bool max = op.op == ir::PoolOp::Max;
  ::onnx::NodeProto& node =
      c.writer.node(max ? "MaxPool" : "AveragePool", c.names.inputs, {c.names.outputs[0]});
  set_ints(node, "kernel_shape", op.kernel);
  set_ints(node, "strides", op.stride);
  std::vector<int64_t> pads = op.padding;
  pads.insert(pads.end(), op.padding.begin(), op.padding.end());
  set_ints(node, "pads", pads);
  set_int(node, "ceil_mode", op.ceil_mode ? 1 : 0);
  if (max) set_ints(node, "dilations", op.dilation);
  if (!max) set_int(node, "count_include_pad", op.count_include_pad ? 1 : 0);
}
void write(const OpContext& c, const ir::AdaptivePool& op) {
  const bool global = std::ranges::all_of(op.output_size, [](int64_t s) { return s == 1; });
  if (!global || (c.used.size() > 1 && c.used[1])) c.unsupported(" (only a global pool is)");
  c.writer.node(op.op == ir::PoolOp::Max ? "GlobalMaxPool" : "GlobalAveragePool", c.names.inputs,
                {c.names.outputs[0]});
}

/// Sort as ONNX's TopK of every entry along the dim (largest first when descending); the
/// indices are i64 in ONNX, cast where ember's are another dtype.
void write(const OpContext& c, const ir::Sort& op) {
  if (op.dim == 0 && c.writer.batched(c.node().inputs[0]))
    c.unsupported(" along the dynamic batch dim");
  const int64_t size = c.input_meta(0).shape.dims()[static_cast<std::size_t>(op.dim)];
  const std::array<int64_t, 1> k = {size};
  const bool cast = op.index_dtype != DType::I64;
  const std::string indices = cast ? c.writer.fresh("indices") : c.names.outputs[1];
  ::onnx::NodeProto& node =
      c.writer.node("TopK", {c.names.inputs[0], c.writer.int64s(k)}, {c.names.outputs[0], indices});
  set_int(node, "axis", op.dim);
  set_int(node, "largest", op.descending ? 1 : 0);
  set_int(node, "sorted", 1);
  if (cast)
    set_int(c.writer.node("Cast", {indices}, {c.names.outputs[1]}), "to",
            onnx_type(op.index_dtype));
}
/// A running sum is ONNX's CumSum; ONNX has no running product, maximum or minimum.
void write(const OpContext& c, const ir::Cumulative& op) {
  if (op.op != ir::CumulativeOp::Sum) c.unsupported(" (ONNX has CumSum only)");
  const std::array<int64_t, 1> axis = {op.dim};
  c.writer.node("CumSum", {c.names.inputs[0], c.writer.int64s(axis)}, {c.names.outputs[0]});
}
/// Interpolate as ONNX's Resize: PyTorch's nearest is asymmetric coordinates rounded down, its
/// linear and cubic half_pixel coordinates (out-of-range neighbours clamped to the edge, as
/// ONNX does) or align_corners, cubic with a = -0.75. The scales given, else the sizes, as
/// the input: ONNX maps coordinates with the one it is given, as PyTorch does.
void write(const OpContext& c, const ir::Interpolate& op) {
  const bool batched = c.writer.batched(c.node().inputs[0]);
  const std::size_t spatial = op.size.size();
  if (batched && c.writer.options().opset < 18)
    c.unsupported(" with a dynamic batch below opset 18 (Resize's axes)");
  std::vector<int64_t> axes;
  for (std::size_t d = 0; d < spatial; ++d)
    axes.push_back(static_cast<int64_t>(d + 2));
  const auto& in = c.input_meta(0).shape.dims();
  std::vector<std::string> inputs = {c.names.inputs[0], ""};
  if (!op.scales.empty()) {
    std::vector<double> scales = op.scales;
    if (!batched) scales.insert(scales.begin(), {1.0, 1.0});
    inputs.push_back(c.writer.initializer(
        TensorData(scales, Shape{static_cast<int64_t>(scales.size())}, DType::F32)));
  } else {
    std::vector<int64_t> sizes = op.size;
    if (!batched) sizes.insert(sizes.begin(), {in[0], in[1]});
    inputs.push_back("");
    inputs.push_back(c.writer.int64s(sizes));
  }
  ::onnx::NodeProto& node = c.writer.node("Resize", std::move(inputs), {c.names.outputs[0]});
  if (batched) set_ints(node, "axes", axes);
  const bool nearest = op.mode == ir::InterpolateMode::Nearest;
  set_string(node, "mode",
             nearest                                  ? "nearest"
             : op.mode == ir::InterpolateMode::Linear ? "linear"
                                                      : "cubic");
  set_string(node, "coordinate_transformation_mode",
             nearest            ? "asymmetric"
             : op.align_corners ? "align_corners"
                                : "half_pixel");
  if (nearest) set_string(node, "nearest_mode", "floor");
  if (op.mode == ir::InterpolateMode::Cubic) set_float(node, "cubic_coeff_a", -0.75);
}

/// The ops with no ONNX form here: training-only gradient ops, random tensors (an exported
/// model is deterministic), ops not mapped yet, and the fused row ops but LayerNorm, which
/// to_onnx writes as their composites (written_as_onnx).
template <typename T>
inline constexpr bool kNotExported = std::is_same_v<T, ir::Flip> ||
                                     std::is_same_v<T, ir::SliceAssign> ||
                                     std::is_same_v<T, ir::SelectAssign> ||
                                     std::is_same_v<T, ir::Scatter> ||
                                     std::is_same_v<T, ir::Random> ||
                                     std::is_same_v<T, ir::ConvWeightGrad> ||
                                     std::is_same_v<T, ir::AvgPoolGrad> ||
                                     std::is_same_v<T, ir::AdaptiveAvgPoolGrad> ||
                                     std::is_same_v<T, ir::InterpolateGrad> ||
                                     std::is_same_v<T, ir::Attention> ||
                                     std::is_same_v<T, ir::AttentionGrad> ||
                                     (ir::FusedRowOp<T> && !std::is_same_v<T, ir::LayerNorm>);

template <typename T>
requires kNotExported<T>
void write(const OpContext& c, const T&) {
  c.unsupported();
}

}  // namespace

void write_onnx_op(OnnxWriter& writer, const GraphImpl& graph, std::size_t index,
                   const OnnxOpNames& names, const std::vector<bool>& used) {
  const OpContext context{writer, graph, index, names, used};
  std::visit([&](const auto& op) { write(context, op); }, *graph.nodes[index].op);
}

bool written_as_onnx(const ir::Op& op) {
  const auto* norm = std::get_if<ir::LayerNorm>(&op);
  return norm != nullptr && !norm->rms;
}

}  // namespace ember::detail
