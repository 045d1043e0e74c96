#include "backends/wgpu/reduce_sources.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/reduce_passes.h"
#include "backends/shader/reduce_text.h"
#include "codegen/wgsl_program.h"

namespace ember::wgpu {
namespace {

using ir::ReduceOp;

/// Two words a chunk: a compensated sum and its error, a product, an extreme's bits and its
/// index, a truth, or Var's chunk mean and sum of squared deviations.
constexpr uint64_t kPartialBytes = 8;

/// The WGSL type x's elements compute in (Bool: u32, 0 or 1).
std::string wgsl_type(DType x) {
  if (x == DType::I32) return "i32";
  return x == DType::U32 || x == DType::Bool ? "u32" : "f32";
}

/// lane(o): the result's word of lane o from its chunks' words src[2k], src[2k + 1] in order.
std::string lane_function(ReduceOp op) {
  std::string text =
      "fn lane(o: u32) -> u32 {\n let n = p[1];\n let chunks = p[3];\n"
      " let k0 = o * chunks;\n";
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
      text +=
          " var total = Sum(0.0f, 0.0f);\n for (var k = k0; k < k0 + chunks; k++) {\n"
          "  total = add(total, bitcast<f32>(src[2u * k]));\n"
          "  total = add(total, bitcast<f32>(src[2u * k + 1u]));\n }\n";
      return text + (op == ReduceOp::Mean ? " return bitcast<u32>(sum_value(total) / f32(n));\n}\n"
                                          : " return bitcast<u32>(sum_value(total));\n}\n");
    case ReduceOp::Prod:
      return text +
             " var s = 1.0f;\n for (var k = k0; k < k0 + chunks; k++) { s = s * "
             "bitcast<f32>(src[2u * k]); }\n return bitcast<u32>(s);\n}\n";
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      text +=
          " var v = bitcast<T>(src[2u * k0]);\n var best = src[2u * k0 + 1u];\n"
          " for (var k = k0 + 1u; k < k0 + chunks; k++) {\n"
          "  let u = bitcast<T>(src[2u * k]);\n"
          "  if (replaces(u, src[2u * k + 1u], v, best)) { v = u; best = src[2u * k + 1u]; }\n }\n";
      return text + (op == ReduceOp::Max || op == ReduceOp::Min ? " return bitcast<u32>(v);\n}\n"
                                                                : " return best;\n}\n");
    case ReduceOp::Any:
    case ReduceOp::All:
      return text + " var r = src[2u * k0];\n for (var k = k0 + 1u; k < k0 + chunks; k++) { r = " +
             (op == ReduceOp::Any ? "max" : "min") + "(r, src[2u * k]); }\n return r;\n}\n";
    case ReduceOp::Var:
      // Chan et al.'s merge of two parts' means and squared deviations; NaN when n - correction
      // <= 0 (ndarray's, as PyTorch's).
      return text + R"( var mean = bitcast<f32>(src[2u * k0]);
 var m2 = Sum(bitcast<f32>(src[2u * k0 + 1u]), 0.0f);
 var count = f32((n + chunks - 1u) / chunks);
 for (var c = 1u; c < chunks; c++) {
  let cmean = bitcast<f32>(src[2u * (k0 + c)]);
  let ccount = f32((n - c + chunks - 1u) / chunks);
  let delta = cmean - mean;
  let total = count + ccount;
  mean = mean + delta * ccount / total;
  m2 = add(m2, bitcast<f32>(src[2u * (k0 + c) + 1u]));
  m2 = add(m2, delta * delta * count * ccount / total);
  count = total;
 }
 if (p[4] >= n) { return 0x7fc00000u; }
 return bitcast<u32>(sum_value(m2) / f32(n - p[4]));
}
)";
  }
  return text;
}

/// The loop of the second pass over the output: a word a lane (an i64 index: two, the high one
/// 0 as the index is below 2^31), or for a Bool result four lanes a word.
std::string output_loop(ReduceOp op, DType out) {
  if (op == ReduceOp::Any || op == ReduceOp::All)
    return R"(  for (var w = gid.x; w < (outputs + 3u) / 4u; w += groups.x * 256u) {
    var word = 0u;
    for (var j = 0u; j < 4u && 4u * w + j < outputs; j++) { word = word | (lane(4u * w + j) << (8u * j)); }
    dst[w] = word;
  }
)";
  const std::string store = out == DType::I64 ? "dst[2u * o] = lane(o);\n    dst[2u * o + 1u] = 0u;"
                                              : "dst[o] = lane(o);";
  return "  for (var o = gid.x; o < outputs; o += groups.x * 256u) {\n    " + store + "\n  }\n";
}

/// The compensated sum of a chunk's elements into total (Sum's, Mean's and Var's first).
constexpr const char* kChunkSum =
    "var total = Sum(0.0f, 0.0f);\n"
    " for (var t = begin; t < n; t += step) { total = add(total, load(first + t * inner)); }\n";

/// The WGSL spelling of the reductions (shader/reduce_text.h). Every binding is read_write
/// (docs/backends/wgpu.md) and holds words: elements are read through load(), and a chunk's
/// partial results are two words. Sums are codegen::wgsl_compensated_sum_helper()'s; each entry
/// sets its opaque_zero from the outputs' count (below 2^31).
class WgslReduce final : public shader::WgslKernelSyntax<shader::ReduceSyntax> {
 public:
  /// The bindings, the compensated sum and the helpers of x's type T: load(i) (element i of src;
  /// a Bool is one byte of a word), is_nan and nonzero (bit tests on f32: the compiler may assume
  /// no NaN of a comparison, and a NaN is nonzero).
  std::string declarations(DType x, DType /*out*/) const override {
    std::string text =
        parameters_header("ember's wgpu reductions (src/backends/wgpu/reduce_sources.cpp)") +
        "@group(0) @binding(1) var<storage, read_write> src: array<u32>;\n"
        "@group(0) @binding(2) var<storage, read_write> dst: array<u32>;\n" +
        std::string(codegen::wgsl_compensated_sum_helper()) + "alias T = " + wgsl_type(x) + ";\n";
    text += x == DType::Bool ? "fn load(i: u32) -> T { return (src[i >> 2u] >> ((i & 3u) * 8u)) & "
                               "0xffu; }\n"
                             : "fn load(i: u32) -> T { return bitcast<T>(src[i]); }\n";
    return text + (x == DType::F32
                       ? "fn is_nan(v: T) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > "
                         "0x7f800000u; }\nfn nonzero(v: T) -> bool { return (bitcast<u32>(v) & "
                         "0x7fffffffu) != 0u; }\n"
                       : "fn is_nan(v: T) -> bool { return false; }\nfn nonzero(v: T) -> bool "
                         "{ return v != T(0); }\n");
  }
  std::string_view value_type() const override { return "T"; }
  std::string_view index_type() const override { return word_type(); }
  std::string return_either(const std::string& indent, const std::string& condition,
                            const std::string& value, const std::string& otherwise) const override {
    return indent + if_then(condition, "return " + value + ";") + "\n" + indent + "return " +
           otherwise + ";\n";
  }
  std::string partial_declarations(DType /*x*/) const override { return {}; }
  std::string finish_declarations(ReduceOp op, DType /*out*/) const override {
    return lane_function(op);
  }

  std::string entry() const override { return invocations_entry(shader::kReduceWorkgroup); }
  std::string after_outputs() const override { return "  opaque_zero = outputs >> 31u;\n"; }

  std::string_view partial_type() const override { return word_type(); }
  std::string partial_zero() const override { return "0u"; }
  std::string partials() const override { return "dst"; }
  std::string sum_chunk() const override {
    return std::string(kChunkSum) + " a = bitcast<u32>(total.sum);\n b = bitcast<u32>(total.c);\n";
  }
  std::string product_chunk() const override {
    return "var s = 1.0f;\n for (var t = begin; t < n; t += step) { s = s * load(first + t * "
           "inner); }\n a = bitcast<u32>(s);\n";
  }
  std::string extreme_chunk() const override {
    return "var v = load(first + begin * inner);\n b = begin;\n"
           " for (var t = begin + step; t < n && !is_nan(v); t += step) {\n"
           "  let u = load(first + t * inner);\n"
           "  if (replaces(u, t, v, b)) { v = u; b = t; }\n }\n a = bitcast<u32>(v);\n";
  }
  std::string truth_chunk() const override {
    return " var r = !any_op;\n"
           " for (var t = begin; t < n; t += step) {\n"
           "  if (nonzero(load(first + t * inner)) == any_op) { r = any_op; break; }\n }\n"
           " a = select(0u, 1u, r);\n";
  }
  /// ndarray's two passes over the chunk (compensated in f32): its mean, then the squared
  /// deviations.
  std::string variance_chunk() const override {
    return std::string(kChunkSum) +
           " let mean = sum_value(total) / f32((n - begin + step - 1u) / step);\n"
           " var q = Sum(0.0f, 0.0f);\n"
           " for (var t = begin; t < n; t += step) {\n"
           "  let d = load(first + t * inner) - mean;\n  q = add(q, d * d);\n }\n"
           " a = bitcast<u32>(mean);\n b = bitcast<u32>(sum_value(q));\n";
  }
  std::string finish_lanes(ReduceOp op, DType /*x*/, DType out) const override {
    return output_loop(op, out);
  }
};

/// Whether the kernels hold x's dtype for op.
bool takes_dtype(ReduceOp op, DType x) {
  return shader::reduce_kernels_take(op, x == DType::F32, x == DType::I32 || x == DType::U32,
                                     x == DType::Bool);
}

}  // namespace

shader::ReduceSources reduce_sources() {
  return shader::reduce_sources_of<WgslReduce>(kPartialBytes, true, takes_dtype);
}

}  // namespace ember::wgpu
