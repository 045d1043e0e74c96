#include "backends/wgpu/matmul_kernel.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/shader/matmul_runs.h"
#include "codegen/wgsl_program.h"
#include "ember/error.h"

namespace ember::wgpu {
namespace {

// The batch entry's offsets into each operand, from the parameter words of
// shader/matmul_geometry.h (4 batch dims, outermost first; workgroup z is the entry's chunk of
// k, of p[15] chunks of p[16] elements: k0 to k1); 4 loop turns. c0: the workgroup's output
// plane (a partial result's where k is split).
constexpr const char* kBatchOffsets = R"(  let m = p[0];
  let n = p[1];
  let k = p[2];
  var entry = group.z / p[15];
  let k0 = (group.z % p[15]) * p[16];
  let k1 = min(k, k0 + p[16]);
  var a0 = 0u;
  var b0 = 0u;
  for (var d = 3i; d >= 0i; d--) {
    let size = p[3 + 3 * d];
    let i = entry % size;
    entry /= size;
    a0 += i * p[4 + 3 * d];
    b0 += i * p[5 + 3 * d];
  }
  let c0 = group.z * m * n;
)";

// Invocation (ty, tx) holds rows ty*4.. and columns tx*4.. of the tile; lhs_tile[j][r / 4] holds
// rows r.. r+3 at k step j, rhs_tile[j][c / 4] columns c.. c+3. Zeros pad both sides only where
// k runs out (so an inf or NaN never meets a padding zero in a stored output) and where the tile
// passes m or n (outputs not stored). The parameters come from a read-only buffer, so the loop
// around the barriers is uniform. Loop turns: 4, 17 a step of 16 along k's chunk, 20.
constexpr const char* kBody = R"(  let tid = local_index;
  let row0 = group.y * 64u;
  let col0 = group.x * 64u;
  let ty = tid >> 4u;
  let tx = tid & 15u;
  let lhs_r = tid >> 2u;
  let lhs_j = (tid & 3u) * 4u;
  let rhs_j = tid >> 4u;
  let rhs_c = col0 + tx * 4u;
  let lhs_i = row0 + lhs_r;
  let lhs_row = lhs_i < m;
  var acc = array<vec4<f32>, 4>(vec4<f32>(), vec4<f32>(), vec4<f32>(), vec4<f32>());
  for (var t = k0; t < k1; t += 16u) {
    let j = t + lhs_j;
    var l = vec4<f32>();
    if (lhs_row && j < k1) { l.x = load_a(a_at(lhs_i, j, a0, m, k)); }
    if (lhs_row && j + 1u < k1) { l.y = load_a(a_at(lhs_i, j + 1u, a0, m, k)); }
    if (lhs_row && j + 2u < k1) { l.z = load_a(a_at(lhs_i, j + 2u, a0, m, k)); }
    if (lhs_row && j + 3u < k1) { l.w = load_a(a_at(lhs_i, j + 3u, a0, m, k)); }
    lhs_tile[lhs_j][lhs_r >> 2u][lhs_r & 3u] = l.x;
    lhs_tile[lhs_j + 1u][lhs_r >> 2u][lhs_r & 3u] = l.y;
    lhs_tile[lhs_j + 2u][lhs_r >> 2u][lhs_r & 3u] = l.z;
    lhs_tile[lhs_j + 3u][lhs_r >> 2u][lhs_r & 3u] = l.w;
    let rhs_k = t + rhs_j;
    let rhs_row = rhs_k < k1;
    var r = vec4<f32>();
    if (rhs_row && rhs_c < n) { r.x = load_b(b_at(rhs_k, rhs_c, b0, n, k)); }
    if (rhs_row && rhs_c + 1u < n) { r.y = load_b(b_at(rhs_k, rhs_c + 1u, b0, n, k)); }
    if (rhs_row && rhs_c + 2u < n) { r.z = load_b(b_at(rhs_k, rhs_c + 2u, b0, n, k)); }
    if (rhs_row && rhs_c + 3u < n) { r.w = load_b(b_at(rhs_k, rhs_c + 3u, b0, n, k)); }
    rhs_tile[rhs_j][tx] = r;
    workgroupBarrier();
    for (var s = 0u; s < 16u; s++) {
      let lv = lhs_tile[s][ty];
      let rv = rhs_tile[s][tx];
      acc[0] = fma(vec4<f32>(lv.x), rv, acc[0]);
      acc[1] = fma(vec4<f32>(lv.y), rv, acc[1]);
      acc[2] = fma(vec4<f32>(lv.z), rv, acc[2]);
      acc[3] = fma(vec4<f32>(lv.w), rv, acc[3]);
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    let row = row0 + ty * 4u + i;
    for (var q = 0u; q < 4u; q++) {
      let col = col0 + tx * 4u + q;
      if (row < m && col < n) { store(c0 + row * n + col, acc[i][q]); }
    }
  }
}
)";

// f32 elements as they are; f16 elements two to a u32 word (the first the low half), the output
// or-ed into words the caller zeroed, as the program kernels store packed elements.
constexpr const char* kF32Access = R"(@group(0) @binding(1) var<storage, read_write> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
fn load_a(i: u32) -> f32 { return a[i]; }
fn load_b(i: u32) -> f32 { return b[i]; }
fn store(i: u32, v: f32) { c[i] = v; }
)";
constexpr const char* kF16Access = R"(@group(0) @binding(1) var<storage, read_write> a: array<u32>;
@group(0) @binding(2) var<storage, read_write> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> c: array<atomic<u32>>;
fn half_of(word: u32, i: u32) -> f32 { return unpack2x16float(word >> ((i & 1u) * 16u)).x; }
fn load_a(i: u32) -> f32 { return half_of(a[i >> 1u], i); }
fn load_b(i: u32) -> f32 { return half_of(b[i >> 1u], i); }
fn store(i: u32, v: f32) { atomicOr(&c[i >> 1u], ember_f16_bits(v) << ((i & 1u) * 16u)); }
)";

}  // namespace

std::string matmul_source(DType dtype, bool lhs_transposed, bool rhs_transposed) {
  if (dtype != DType::F32 && dtype != DType::F16)
    throw InvalidArgument("[matmul] the wgpu matmul kernel takes no " +
                          std::string(dtype_name(dtype)));
  std::string text = "// ember's wgpu matmul (src/backends/wgpu/matmul_kernel.cpp)\n";
  text += "@group(0) @binding(0) var<storage, read> p: array<u32>;\n";
  if (dtype == DType::F16) {
    text += codegen::wgsl_f16_bits_helper();
    text += kF16Access;
  } else {
    text += kF32Access;
  }
  // Where an operand's element (row r, column j) lies: row-major, or its transpose's.
  text +=
      lhs_transposed
          ? "fn a_at(r: u32, j: u32, a0: u32, m: u32, k: u32) -> u32 { return a0 + j * m + r; }\n"
          : "fn a_at(r: u32, j: u32, a0: u32, m: u32, k: u32) -> u32 { return a0 + r * k + j; }\n";
  text +=
      rhs_transposed
          ? "fn b_at(r: u32, j: u32, b0: u32, n: u32, k: u32) -> u32 { return b0 + j * k + r; }\n"
          : "fn b_at(r: u32, j: u32, b0: u32, n: u32, k: u32) -> u32 { return b0 + r * n + j; }\n";
  text += "var<workgroup> lhs_tile: array<array<vec4<f32>, 16>, 16>;\n";
  text += "var<workgroup> rhs_tile: array<array<vec4<f32>, 16>, 16>;\n";
  text += "@compute @workgroup_size(256)\n";
  text +=
      "fn main(@builtin(workgroup_id) group: vec3<u32>, "
      "@builtin(local_invocation_index) local_index: u32) {\n";
  text += kBatchOffsets;
  return text + kBody;
}

std::string matmul_partials_sum_source() {
  return R"(// ember's wgpu matmul's sum of k's chunks (src/backends/wgpu/matmul_kernel.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let n = p[0];
  let splits = p[1];
  let plane = p[2];
  for (var e = gid.x; e < n; e += groups.x * 256u) {
    let first = (e / plane) * splits * plane + e % plane;
    var total = a[first];
    for (var q = 1u; q < splits; q++) {
      total += a[first + q * plane];
    }
    c[e] = total;
  }
}
)";
}

MatmulKernel::MatmulKernel(const KernelRunner& runner)
    : runner_(runner), sum_(matmul_partials_sum_source()) {
  for (std::size_t layout = 0; layout < 4; ++layout) {
    f32_[layout] = matmul_source(DType::F32, layout >= 2, layout % 2 == 1);
    f16_[layout] = matmul_source(DType::F16, layout >= 2, layout % 2 == 1);
  }
}

std::optional<shader::MatmulGeometry> MatmulKernel::geometry(const ir::TensorMeta& lhs,
                                                             const ir::TensorMeta& rhs,
                                                             const ir::TensorMeta& out) const {
  if ((lhs.dtype != DType::F32 && lhs.dtype != DType::F16) || rhs.dtype != lhs.dtype)
    return std::nullopt;
  // A tensor's binding covers its whole words (padded): 2-byte elements are counted as 4 so
  // that the padding of an odd count is inside the limit too.
  // f16 is not split: its partials would round to f16.
  const uint64_t fill = lhs.dtype == DType::F16 ? 0 : runner_.limits().fill_groups;
  return shader::matmul_geometry(lhs, rhs, out, 4, runner_.limits().max_binding,
                                 runner_.limits().max_groups, runner_.limits().max_loop_turns,
                                 shader::kMatmulTile, fill);
}

bool MatmulKernel::takes(const ir::TensorMeta& lhs, const ir::TensorMeta& rhs,
                         const ir::TensorMeta& out) const {
  return geometry(lhs, rhs, out).has_value();
}

void MatmulKernel::run(const Operand& a, const Operand& b, const BufferRange& c,
                       const ir::TensorMeta& lhs, const ir::TensorMeta& rhs,
                       const ir::TensorMeta& out, const shader::Scratch<BufferRange>& scratch) {
  const shader::MatmulGeometry g = *geometry(lhs, rhs, out);
  BufferRange partials{};
  const std::shared_ptr<const void> held =
      g.splits > 1 ? scratch(g.partial_elements() * sizeof(float), &partials) : nullptr;
  shader::record_matmul(
      g, [&] { runner_.stream().fill_zero(c); },
      [&](const std::vector<uint32_t>& words, const std::array<uint32_t, 3>& groups) {
        // Packed f16 results are or-ed into their words: zero them first.
        if (lhs.dtype == DType::F16) runner_.stream().fill_zero(c);
        const BufferRange tensors[] = {a.range, b.range, g.splits > 1 ? partials : c};
        shader::matmul_runs().transposed += (a.transposed ? 1 : 0) + (b.transposed ? 1 : 0);
        const std::size_t layout = (a.transposed ? 2 : 0) + (b.transposed ? 1 : 0);
        runner_.dispatch(lhs.dtype == DType::F16 ? f16_[layout] : f32_[layout],
                         std::as_bytes(std::span(words)), tensors, groups[0], groups[1], groups[2]);
        ++shader::matmul_runs().tiled;
      },
      [&] {
        const std::vector<uint32_t> words = g.sum_words();
        const BufferRange tensors[] = {partials, c};
        runner_.dispatch(sum_, std::as_bytes(std::span(words)), tensors,
                         g.sum_groups(runner_.limits().max_groups));
        ++shader::matmul_runs().split;
      });
}

}  // namespace ember::wgpu
