#include "backends/wgpu/reduce_sources.h"

#include <cstdint>
#include <string>

#include "backends/shader/reduce_passes.h"
#include "codegen/wgsl_program.h"

namespace ember::wgpu {
namespace {

using ir::ReduceOp;

/// Two words a chunk: a compensated sum and its error, a product, an extreme's bits and its
/// index, a truth, or Var's chunk mean and sum of squared deviations.
constexpr uint64_t kPartialBytes = 8;

// Every binding is read_write (docs/backends/wgpu.md) and holds words: elements are read through
// load(). Sums are codegen::wgsl_compensated_sum_helper()'s; each entry sets its opaque_zero from
// the outputs' count (below 2^31).
std::string common() {
  return std::string(
             "// ember's wgpu reductions (src/backends/wgpu/reduce_sources.cpp)\n"
             "@group(0) @binding(0) var<storage, read> p: array<u32>;\n"
             "@group(0) @binding(1) var<storage, read_write> src: array<u32>;\n"
             "@group(0) @binding(2) var<storage, read_write> dst: array<u32>;\n") +
         std::string(codegen::wgsl_compensated_sum_helper());
}

/// The WGSL type x's elements compute in (Bool: u32, 0 or 1).
std::string wgsl_type(DType x) {
  if (x == DType::I32) return "i32";
  return x == DType::U32 || x == DType::Bool ? "u32" : "f32";
}

/// The helpers of x's type T: load(i) (element i of src; a Bool is one byte of a word), is_nan
/// and nonzero (bit tests on f32: the compiler may assume no NaN of a comparison, and a NaN is
/// nonzero), and replaces(b, ib, a, ia): whether b (at index ib) replaces a (at ia) as the lane's
/// extreme so far (the first NaN, else a value beyond, the first index of equal ones: ndarray's
/// extreme_index).
std::string helpers(ReduceOp op, DType x) {
  const std::string type = wgsl_type(x);
  std::string text = "alias T = " + type + ";\n";
  text += x == DType::Bool ? "fn load(i: u32) -> T { return (src[i >> 2u] >> ((i & 3u) * 8u)) & "
                             "0xffu; }\n"
                           : "fn load(i: u32) -> T { return bitcast<T>(src[i]); }\n";
  text += x == DType::F32 ? "fn is_nan(v: T) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > "
                            "0x7f800000u; }\nfn nonzero(v: T) -> bool { return (bitcast<u32>(v) & "
                            "0x7fffffffu) != 0u; }\n"
                          : "fn is_nan(v: T) -> bool { return false; }\nfn nonzero(v: T) -> bool "
                            "{ return v != T(0); }\n";
  const std::string order = op == ReduceOp::Max || op == ReduceOp::ArgMax ? ">" : "<";
  text +=
      "fn replaces(b: T, ib: u32, a: T, ia: u32) -> bool {\n"
      "  if (is_nan(a)) { return is_nan(b) && ib < ia; }\n"
      "  return is_nan(b) || b " +
      order + " a || (b == a && ib < ia);\n}\n";
  return text;
}

/// The body that reduces x's elements first + t * inner, t = begin, begin + step, ... below n,
/// into words a, b.
std::string chunk_body(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
      return "var total = Sum(0.0f, 0.0f);\n"
             " for (var t = begin; t < n; t += step) { total = add(total, load(first + t * "
             "inner)); }\n"
             " a = bitcast<u32>(total.sum);\n b = bitcast<u32>(total.c);\n";
    case ReduceOp::Prod:
      return "var s = 1.0f;\n for (var t = begin; t < n; t += step) { s = s * load(first + t * "
             "inner); }\n a = bitcast<u32>(s);\n";
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return "var v = load(first + begin * inner);\n b = begin;\n"
             " for (var t = begin + step; t < n && !is_nan(v); t += step) {\n"
             "  let u = load(first + t * inner);\n"
             "  if (replaces(u, t, v, b)) { v = u; b = t; }\n }\n a = bitcast<u32>(v);\n";
    case ReduceOp::Any:
    case ReduceOp::All:
      return "let any_op = " + std::string(op == ReduceOp::Any ? "true" : "false") +
             ";\n var r = !any_op;\n"
             " for (var t = begin; t < n; t += step) {\n"
             "  if (nonzero(load(first + t * inner)) == any_op) { r = any_op; break; }\n }\n"
             " a = select(0u, 1u, r);\n";
    case ReduceOp::Var:
      // ndarray's two passes over the chunk (compensated in f32): its mean, then the squared
      // deviations.
      return "var total = Sum(0.0f, 0.0f);\n"
             " for (var t = begin; t < n; t += step) { total = add(total, load(first + t * "
             "inner)); }\n"
             " let mean = sum_value(total) / f32((n - begin + step - 1u) / step);\n var q = "
             "Sum(0.0f, "
             "0.0f);\n"
             " for (var t = begin; t < n; t += step) {\n"
             "  let d = load(first + t * inner) - mean;\n  q = add(q, d * d);\n }\n"
             " a = bitcast<u32>(mean);\n b = bitcast<u32>(sum_value(q));\n";
  }
  return "";
}

/// The first pass: each chunk of each lane (chunk c: its elements c, c + chunks, ..., so that
/// neighbouring invocations read neighbouring elements) reduced in order into dst[2w],
/// dst[2w + 1].
std::string partial_source(ReduceOp op, DType x) {
  std::string text = common() + helpers(op, x);
  text += R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let outputs = p[0];
  opaque_zero = outputs >> 31u;
  let n = p[1];
  let inner = p[2];
  let chunks = p[3];
  for (var w = gid.x; w < outputs * chunks; w += groups.x * 256u) {
    let o = w / chunks;
    let begin = w - o * chunks;
    let step = chunks;
    let row = o / inner;
    let first = row * n * inner + (o - row * inner);
    var a = 0u;
    var b = 0u;
)";
  text += chunk_body(op);
  return text + "    dst[2u * w] = a;\n    dst[2u * w + 1u] = b;\n  }\n}\n";
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

/// The second pass: each lane's chunks combined in order into its result.
std::string finish_source(ReduceOp op, DType x, DType out) {
  std::string text = common() + helpers(op, x) + lane_function(op);
  text += R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let outputs = p[0];
  opaque_zero = outputs >> 31u;
)";
  return text + output_loop(op, out) + "}\n";
}

/// Whether the kernels hold x's dtype for op.
bool takes_dtype(ReduceOp op, DType x) {
  return shader::reduce_kernels_take(op, x == DType::F32, x == DType::I32 || x == DType::U32,
                                     x == DType::Bool);
}

}  // namespace

shader::ReduceSources reduce_sources() {
  return {kPartialBytes, true, takes_dtype, partial_source, finish_source};
}

}  // namespace ember::wgpu
