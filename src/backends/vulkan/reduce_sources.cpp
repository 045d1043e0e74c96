#include "backends/vulkan/reduce_sources.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/reduce_passes.h"
#include "backends/shader/reduce_text.h"

namespace ember::vulkan {
namespace {

using ir::ReduceOp;

/// Two doubles a chunk: a sum, a product, an extreme and its index, a truth, or Var's chunk mean
/// and sum of squared deviations.
constexpr uint64_t kPartialBytes = 16;

/// The GLSL element type of dtype (one takes_dtype takes).
std::string glsl_type(DType dtype) {
  if (dtype == DType::F64) return "double";
  if (dtype == DType::I32) return "int";
  if (dtype == DType::U32) return "uint";
  return dtype == DType::Bool ? "uint8_t" : "float";
}

/// The combination of chunk c (its ca, cb, ccount) into the lane's a, b (count: the lane's so far).
std::string combine(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
      return "a += ca;\n";
    case ReduceOp::Prod:
      return "a *= ca;\n";
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return "if (replaces(ca, cb, a, b)) { a = ca; b = cb; }\n";
    case ReduceOp::Any:
      return "a = max(a, ca);\n";
    case ReduceOp::All:
      return "a = min(a, ca);\n";
    case ReduceOp::Var:
      // Chan et al.'s merge of two parts' means and squared deviations.
      return "const double delta = ca - a;\n const double total = count + ccount;\n"
             " a += delta * ccount / total;\n b += cb + delta * delta * count * ccount / total;\n";
  }
  return "";
}

/// The lane's result from a, b into y[o].
std::string result(ReduceOp op, DType x, DType out) {
  const std::string type = glsl_type(x);
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Max:
    case ReduceOp::Min:
      return "y[o] = " + type + "(a);\n";
    case ReduceOp::Mean:
      return "y[o] = " + type + "(a / double(n));\n";
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      // An I64 index is two words, the high one 0 (the index is below 2^31).
      return out == DType::I64 ? "y[2u * o] = uint(b);\n y[2u * o + 1u] = 0u;\n"
                               : "y[o] = uint(b);\n";
    case ReduceOp::Any:
    case ReduceOp::All:
      return "y[o] = uint8_t(a != 0.0lf ? 1u : 0u);\n";
    case ReduceOp::Var:
      // NaN when n - correction <= 0 (ndarray's, as PyTorch's).
      return "y[o] = p[4] >= n ? " + type + "(uintBitsToFloat(0x7fc00000u)) : " + type +
             "(b / double(n - p[4]));\n";
  }
  return "";
}

/// The sum of a chunk's elements into s, in double (Sum's, Mean's and Var's first).
constexpr const char* kChunkSum =
    "precise double s = 0.0lf;\n for (uint t = begin; t < n; t += step) s += load(first + t * "
    "inner);\n";

/// The GLSL spelling of the reductions (shader/reduce_text.h): chunks reduced in double, their
/// partial results two doubles; each buffer declares how the kernel uses it and holds x's
/// elements as they are (8-bit storage for a Bool).
class GlslReduce final : public shader::GlslKernelSyntax<shader::ReduceSyntax> {
 public:
  /// The version, extensions, workgroup and parameter block, and the NaN test of x's type (none on
  /// integers: comparisons then stand alone).
  std::string declarations(DType x, DType out) const override {
    std::string text =
        "#version 450\n// ember's vulkan reductions (src/backends/vulkan/reduce_sources.cpp)\n";
    if (x == DType::Bool || out == DType::Bool)
      text += "#extension GL_EXT_shader_8bit_storage : require\n";
    text += R"(layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
)";
    const bool floating = x == DType::F32 || x == DType::F64;
    return text + (floating ? "bool is_nan(double v) { return isnan(v); }\n"
                            : "bool is_nan(double v) { return false; }\n");
  }
  std::string_view value_type() const override { return "double"; }
  std::string_view index_type() const override { return "double"; }
  std::string return_either(const std::string& indent, const std::string& condition,
                            const std::string& value, const std::string& otherwise) const override {
    return indent + "return " + select(otherwise, value, condition) + ";\n";
  }
  std::string partial_declarations(DType x) const override {
    std::string text =
        "layout(std430, set = 0, binding = 1) readonly buffer X { " + glsl_type(x) + " x[]; };\n";
    // uint8_t converts to the other integers only.
    text += x == DType::Bool ? "double load(uint i) { return double(uint(x[i])); }\n"
                             : "double load(uint i) { return double(x[i]); }\n";
    return text +
           "layout(std430, set = 0, binding = 2) writeonly buffer Partial { double partial[]; };\n";
  }
  std::string finish_declarations(ReduceOp op, DType out) const override {
    const bool arg = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
    return "layout(std430, set = 0, binding = 1) readonly buffer Partial { double partial[]; };\n"
           "layout(std430, set = 0, binding = 2) writeonly buffer Out { " +
           (arg ? "uint" : glsl_type(out)) + " y[]; };\n";
  }

  std::string entry() const override { return "void main() {\n"; }
  std::string after_outputs() const override { return {}; }

  std::string_view partial_type() const override { return "double"; }
  std::string partial_zero() const override { return "0.0lf"; }
  std::string partials() const override { return "partial"; }
  std::string sum_chunk() const override { return std::string(kChunkSum) + " a = s;\n"; }
  std::string product_chunk() const override {
    return "precise double s = 1.0lf;\n for (uint t = begin; t < n; t += step) s *= load(first + "
           "t * inner);\n a = s;\n";
  }
  std::string extreme_chunk() const override {
    return "a = load(first + begin * inner);\n b = double(begin);\n"
           " for (uint t = begin + step; t < n && !is_nan(a); t += step) {\n"
           "  const double v = load(first + t * inner);\n"
           "  if (replaces(v, double(t), a, b)) { a = v; b = double(t); }\n }\n";
  }
  std::string truth_chunk() const override {
    return " a = any_op ? 0.0lf : 1.0lf;\n"
           " for (uint t = begin; t < n; t += step)\n"
           "  if ((is_nan(load(first + t * inner)) || load(first + t * inner) != 0.0lf) == "
           "any_op) { a = any_op ? 1.0lf : 0.0lf; break; }\n";
  }
  /// ndarray's two passes over the chunk, in double: its mean, then the squared deviations.
  std::string variance_chunk() const override {
    return std::string(kChunkSum) +
           " a = s / double((n - begin + step - 1u) / step);\n precise double q = 0.0lf;\n"
           " for (uint t = begin; t < n; t += step) {\n"
           "  const double d = load(first + t * inner) - a;\n  q += d * d;\n }\n b = q;\n";
  }
  /// Each lane's chunks in order from the first's a, b, its count of elements so far.
  std::string finish_lanes(ReduceOp op, DType x, DType out) const override {
    std::string text = R"(  const uint n = p[1];
  const uint chunks = p[3];
  for (uint o = gl_GlobalInvocationID.x; o < outputs; o += gl_NumWorkGroups.x * 256u) {
    double a = partial[2u * o * chunks];
    double b = partial[2u * o * chunks + 1u];
    double count = double((n + chunks - 1u) / chunks);
    for (uint c = 1u; c < chunks; ++c) {
      const double ca = partial[2u * (o * chunks + c)];
      const double cb = partial[2u * (o * chunks + c) + 1u];
      const double ccount = double((n - c + chunks - 1u) / chunks);
)";
    text += combine(op) + "      count += ccount;\n    }\n";
    return text + result(op, x, out) + "  }\n";
  }
};

/// Whether the kernels hold x's dtype for op (doubles hold every value they take exactly; a Bool
/// needs 8-bit storage).
bool takes_dtype(ReduceOp op, DType x, const Features& features) {
  return shader::reduce_kernels_take(op, x == DType::F32 || (x == DType::F64 && features.float64),
                                     x == DType::I32 || x == DType::U32,
                                     x == DType::Bool && features.storage8);
}

}  // namespace

shader::ReduceSources reduce_sources(const Features& features) {
  // The partial results are doubles: a device without them runs every reduction on the host; a
  // Bool result (Any, All) is stored in 8 bits.
  const auto takes = [features](ReduceOp op, DType x) {
    const bool truth = op == ReduceOp::Any || op == ReduceOp::All;
    return features.float64 && (!truth || features.storage8) && takes_dtype(op, x, features);
  };
  return shader::reduce_sources_of<GlslReduce>(kPartialBytes, false, takes);
}

}  // namespace ember::vulkan
