#include "backends/vulkan/reduce_sources.h"

#include <cstdint>
#include <string>

#include "backends/shader/reduce_passes.h"

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

/// The shader's version, extensions, workgroup and parameter block, and the NaN test of x's type
/// (none on integers: comparisons then stand alone).
std::string header(DType x, DType out) {
  std::string text =
      "#version 450\n// ember's vulkan reductions (src/backends/vulkan/reduce_sources.cpp)\n";
  if (x == DType::Bool || out == DType::Bool)
    text += "#extension GL_EXT_shader_8bit_storage : require\n";
  text += R"(layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
)";
  const bool floating = x == DType::F32 || x == DType::F64;
  text += floating ? "bool is_nan(double v) { return isnan(v); }\n"
                   : "bool is_nan(double v) { return false; }\n";
  return text;
}

/// Whether b (at index ib) replaces a (at ia) as the lane's extreme so far: the first NaN, else a
/// greater (smaller) value, the first index of equal ones (ndarray's extreme_index).
std::string replaces(ReduceOp op) {
  const std::string order = op == ReduceOp::Max || op == ReduceOp::ArgMax ? ">" : "<";
  return "bool replaces(double b, double ib, double a, double ia) {\n"
         "  return is_nan(a) ? is_nan(b) && ib < ia : is_nan(b) || b " +
         order + " a || (b == a && ib < ia);\n}\n";
}

/// The body that reduces x's elements first + t * inner, t = begin, begin + step, ... below n,
/// into a and b.
std::string chunk_body(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
      return "precise double s = 0.0lf;\n for (uint t = begin; t < n; t += step) s += load(first + "
             "t * inner);\n a = s;\n";
    case ReduceOp::Prod:
      return "precise double s = 1.0lf;\n for (uint t = begin; t < n; t += step) s *= load(first + "
             "t * inner);\n a = s;\n";
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return "a = load(first + begin * inner);\n b = double(begin);\n"
             " for (uint t = begin + step; t < n && !is_nan(a); t += step) {\n"
             "  const double v = load(first + t * inner);\n"
             "  if (replaces(v, double(t), a, b)) { a = v; b = double(t); }\n }\n";
    case ReduceOp::Any:
    case ReduceOp::All:
      return "const bool any_op = " + std::string(op == ReduceOp::Any ? "true" : "false") +
             ";\n a = any_op ? 0.0lf : 1.0lf;\n"
             " for (uint t = begin; t < n; t += step)\n"
             "  if ((is_nan(load(first + t * inner)) || load(first + t * inner) != 0.0lf) == "
             "any_op) { a = any_op ? 1.0lf : "
             "0.0lf; break; }\n";
    case ReduceOp::Var:
      // ndarray's two passes over the chunk, in double: its mean, then the squared deviations.
      return "precise double s = 0.0lf;\n for (uint t = begin; t < n; t += step) s += load(first + "
             "t * inner);\n a = s / double((n - begin + step - 1u) / step);\n precise double q = "
             "0.0lf;\n"
             " for (uint t = begin; t < n; t += step) {\n"
             "  const double d = load(first + t * inner) - a;\n  q += d * d;\n }\n b = q;\n";
  }
  return "";
}

/// The first pass: each chunk of each lane (chunk c: its elements c, c + chunks, ..., so that
/// neighbouring invocations read neighbouring elements) reduced in order into partial[2w],
/// partial[2w + 1].
std::string partial_source(ReduceOp op, DType x) {
  std::string text = header(x, x) + replaces(op);
  text += "layout(std430, set = 0, binding = 1) readonly buffer X { " + glsl_type(x) + " x[]; };\n";
  // uint8_t converts to the other integers only.
  text += x == DType::Bool ? "double load(uint i) { return double(uint(x[i])); }\n"
                           : "double load(uint i) { return double(x[i]); }\n";
  text += R"(layout(std430, set = 0, binding = 2) writeonly buffer Partial { double partial[]; };
void main() {
  const uint outputs = p[0];
  const uint n = p[1];
  const uint inner = p[2];
  const uint chunks = p[3];
  for (uint w = gl_GlobalInvocationID.x; w < outputs * chunks; w += gl_NumWorkGroups.x * 256u) {
    const uint o = w / chunks;
    const uint begin = w - o * chunks;
    const uint step = chunks;
    const uint row = o / inner;
    const uint first = row * n * inner + (o - row * inner);
    double a = 0.0lf;
    double b = 0.0lf;
)";
  text += chunk_body(op);
  text += "    partial[2u * w] = a;\n    partial[2u * w + 1u] = b;\n  }\n}\n";
  return text;
}

/// The combination of chunk c (its a, b, count) into the lane's a, b (count: the lane's so far).
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

/// The second pass: each lane's chunks combined in order into its result.
std::string finish_source(ReduceOp op, DType x, DType out) {
  const bool arg = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
  const std::string out_type = arg ? "uint" : glsl_type(out);
  std::string text = header(x, out) + replaces(op);
  text += "layout(std430, set = 0, binding = 1) readonly buffer Partial { double partial[]; };\n";
  text += "layout(std430, set = 0, binding = 2) writeonly buffer Out { " + out_type + " y[]; };\n";
  text += R"(void main() {
  const uint outputs = p[0];
  const uint n = p[1];
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
  text += combine(op);
  text += "      count += ccount;\n    }\n";
  text += result(op, x, out);
  text += "  }\n}\n";
  return text;
}

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
  return {kPartialBytes, false, takes, partial_source, finish_source};
}

}  // namespace ember::vulkan
