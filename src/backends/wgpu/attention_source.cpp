#include "backends/wgpu/attention_source.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace ember::wgpu {
namespace {

/// The bindings the forward and gradient passes share (q, k, v, the mask as words; read_write as
/// every tensor: slices of one page may be bound together), the score of a query and a key, and
/// the two tiles of workgroup memory.
constexpr const char* kAttentionCommon = R"(
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> q: array<f32>;
@group(0) @binding(2) var<storage, read_write> k: array<f32>;
@group(0) @binding(3) var<storage, read_write> v: array<f32>;
@group(0) @binding(4) var<storage, read_write> mask_words: array<u32>;
var<workgroup> xs: array<f32, TILE * E_>;
var<workgroup> ys: array<f32, TILE * EV_>;
fn neg_inf() -> f32 { return bitcast<f32>(0xff800000u); }
fn is_neg_inf(x: f32) -> bool { return bitcast<u32>(x) == 0xff800000u; }
// The mask's offset of batch entry b: its coordinates (innermost last) times their strides.
fn mask_base(entry: u32) -> u32 {
  var b = entry;
  var base = 0u;
  for (var d = p[6]; d > 0u; d--) {
    let size = p[5u + 2u * d];
    base += (b % size) * p[6u + 2u * d];
    b /= size;
  }
  return base;
}
// The score of query i and key j from their dot product: -inf where masked out, or not valid.
fn score(product: f32, base: u32, i: u32, j: u32, valid: bool) -> f32 {
  if (!valid || (CAUSAL != 0u && j > i)) { return neg_inf(); }
  let at = base + i * p[3] + j * p[4];
  let scaled = product * bitcast<f32>(p[2]);
  if (MASK_KIND == 1u) {
    return select(neg_inf(), scaled, ((mask_words[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu) != 0u);
  }
  if (MASK_KIND == 2u) { return scaled + bitcast<f32>(mask_words[at]); }
  return scaled;
}
// The dot products of a row of E_ with row r of xs, and of a row of EV_ with row r of ys.
fn x_dot(a: array<f32, E_>, r: u32) -> f32 {
  var sum = 0.0f;
  for (var c = 0u; c < E_; c++) { sum += a[c] * xs[r * E_ + c]; }
  return sum;
}
fn y_dot(a: array<f32, EV_>, r: u32) -> f32 {
  var sum = 0.0f;
  for (var c = 0u; c < EV_; c++) { sum += a[c] * ys[r * EV_ + c]; }
  return sum;
}
// The keys the queries [i0, i0 + ROWS) read: under CAUSAL none past its last query.
fn keys_of(i0: u32) -> u32 { return select(p[1], min(p[1], i0 + ROWS), CAUSAL != 0u); }
)";

/// Rows [r0, r0 + TILE) of the batch entry's rows from `first` of X_TILE (E_ wide) and Y_TILE
/// (EV_ wide) into xs and ys (zeros past n), between two barriers; each pass names its buffers
/// (WGSL passes none to functions).
constexpr const char* kLoadTiles = R"(
fn load_tiles(id: u32, first: u32, r0: u32, n: u32) {
  workgroupBarrier();
  for (var t = id; t < TILE * E_; t += ROWS) {
    xs[t] = select(0.0, X_TILE[(first + r0) * E_ + t], r0 + t / E_ < n);
  }
  for (var t = id; t < TILE * EV_; t += ROWS) {
    ys[t] = select(0.0, Y_TILE[(first + r0) * EV_ + t], r0 + t / EV_ < n);
  }
  workgroupBarrier();
}
)";

/// The entry point's builtins, and where its workgroup of ROWS rows (queries, or keys) of n
/// stands: its batch entry b, its first row r0, this invocation's row r (uniform values apart,
/// as the barriers need).
constexpr const char* kEntry = R"(
@compute @workgroup_size(ROWS)
fn main(@builtin(local_invocation_id) local: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>) {
  let blocks = (N_ROWS + ROWS - 1u) / ROWS;
  let b = group.x / blocks;
  let r0 = (group.x % blocks) * ROWS;
  let r = r0 + local.x;
  let valid = r < N_ROWS;
  let base = mask_base(b);
)";

/// The forward: each query's online softmax over the key tiles, its result and lse written once.
constexpr const char* kForward = R"(
@group(0) @binding(5) var<storage, read_write> result: array<f32>;
@group(0) @binding(6) var<storage, read_write> lse: array<f32>;
)";
constexpr const char* kForwardMain = R"(
  let row = b * p[0] + r;
  var qr: array<f32, E_>;
  if (valid) {
    for (var c = 0u; c < E_; c++) { qr[c] = q[row * E_ + c]; }
  }
  var acc: array<f32, EV_>;
  var m = neg_inf();
  var sum = 0.0f;
  let keys = keys_of(r0);
  for (var j0 = 0u; j0 < keys; j0 += TILE) {
    load_tiles(local.x, b * p[1], j0, p[1]);
    var scores: array<f32, TILE>;
    var tile_max = neg_inf();
    for (var jj = 0u; jj < TILE; jj++) {
      scores[jj] = score(x_dot(qr, jj), base, r, j0 + jj, valid && j0 + jj < p[1]);
      tile_max = max(tile_max, scores[jj]);
    }
    let m_new = max(m, tile_max);
    // Nothing to attend yet: exponents from 0 keep every weight 0 instead of NaN.
    let shift = select(m_new, 0.0, is_neg_inf(m_new));
    let rescale = exp(m - shift);
    sum *= rescale;
    for (var c = 0u; c < EV_; c++) { acc[c] *= rescale; }
    for (var jj = 0u; jj < TILE; jj++) {
      let weight = exp(scores[jj] - shift);
      sum += weight;
      for (var c = 0u; c < EV_; c++) { acc[c] += weight * ys[jj * EV_ + c]; }
    }
    m = m_new;
  }
  if (!valid) { return; }
  // sum == 0 (nothing attended): 0 * inf is NaN, as the composite's softmax; lse is -inf.
  let inverse = 1.0 / sum;
  for (var c = 0u; c < EV_; c++) { result[row * EV_ + c] = acc[c] * inverse; }
  lse[row] = m + log(sum);
}
)";

/// The stats pass: each query row's lse and D = rowsum(grad_out * out), side by side.
constexpr const char* kStats = R"(
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> result: array<f32>;
@group(0) @binding(2) var<storage, read_write> grad: array<f32>;
@group(0) @binding(3) var<storage, read_write> lse: array<f32>;
@group(0) @binding(4) var<storage, read_write> stats: array<f32>;
@compute @workgroup_size(ROWS)
fn main(@builtin(global_invocation_id) global: vec3<u32>) {
  let row = global.x;
  if (row >= p[5] * p[0]) { return; }
  var d = 0.0f;
  for (var c = 0u; c < EV_; c++) { d += grad[row * EV_ + c] * result[row * EV_ + c]; }
  stats[2u * row] = lse[row];
  stats[2u * row + 1u] = d;
}
)";

/// The bindings both gradient passes read after q, k, v and the mask: the stats and grad_out.
constexpr const char* kGradBindings = R"(
@group(0) @binding(5) var<storage, read_write> stats: array<f32>;
@group(0) @binding(6) var<storage, read_write> grad: array<f32>;
)";

/// dQ: each query streams the key tiles, P recomputed from its lse.
constexpr const char* kGradQ = R"(
@group(0) @binding(7) var<storage, read_write> dq: array<f32>;
)";
constexpr const char* kGradQMain = R"(
  let row = b * p[0] + r;
  var qr: array<f32, E_>;
  var acc: array<f32, E_>;
  var gr: array<f32, EV_>;
  // A query past the end weighs exp(-inf - 0) = 0.
  var row_lse = 0.0f;
  var d = 0.0f;
  if (valid) {
    for (var c = 0u; c < E_; c++) { qr[c] = q[row * E_ + c]; }
    for (var c = 0u; c < EV_; c++) { gr[c] = grad[row * EV_ + c]; }
    row_lse = stats[2u * row];
    d = stats[2u * row + 1u];
  }
  let keys = keys_of(r0);
  for (var j0 = 0u; j0 < keys; j0 += TILE) {
    load_tiles(local.x, b * p[1], j0, p[1]);
    for (var jj = 0u; jj < TILE; jj++) {
      let s = score(x_dot(qr, jj), base, r, j0 + jj, valid && j0 + jj < p[1]);
      let ds = exp(s - row_lse) * (y_dot(gr, jj) - d);
      for (var c = 0u; c < E_; c++) { acc[c] += ds * xs[jj * E_ + c]; }
    }
  }
  if (!valid) { return; }
  let scale = bitcast<f32>(p[2]);
  for (var c = 0u; c < E_; c++) { dq[row * E_ + c] = acc[c] * scale; }
}
)";

/// dK and dV: each key streams the query tiles (q and grad_out) with their rows' lse and D.
constexpr const char* kGradKV = R"(
@group(0) @binding(7) var<storage, read_write> dk: array<f32>;
@group(0) @binding(8) var<storage, read_write> dv: array<f32>;
)";
constexpr const char* kGradKVMain = R"(
  let key = b * p[1] + r;
  var kr: array<f32, E_>;
  var dka: array<f32, E_>;
  var vr: array<f32, EV_>;
  var dva: array<f32, EV_>;
  if (valid) {
    for (var c = 0u; c < E_; c++) { kr[c] = k[key * E_ + c]; }
    for (var c = 0u; c < EV_; c++) { vr[c] = v[key * EV_ + c]; }
  }
  // Under CAUSAL, queries before the block's first key attend none of its keys.
  for (var i0 = select(0u, r0, CAUSAL != 0u); i0 < p[0]; i0 += TILE) {
    load_tiles(local.x, b * p[0], i0, p[0]);
    for (var ii = 0u; ii < TILE; ii++) {
      let i = i0 + ii;
      let query = i < p[0];
      let s = score(x_dot(kr, ii), base, i, r, valid && query);
      // A query past the end weighs exp(-inf - 0) = 0.
      var row_lse = 0.0f;
      var d = 0.0f;
      if (query) {
        row_lse = stats[2u * (b * p[0] + i)];
        d = stats[2u * (b * p[0] + i) + 1u];
      }
      let weight = exp(s - row_lse);
      let ds = weight * (y_dot(vr, ii) - d);
      for (var c = 0u; c < EV_; c++) { dva[c] += weight * ys[ii * EV_ + c]; }
      for (var c = 0u; c < E_; c++) { dka[c] += ds * xs[ii * E_ + c]; }
    }
  }
  if (!valid) { return; }
  let scale = bitcast<f32>(p[2]);
  for (var c = 0u; c < E_; c++) { dk[key * E_ + c] = dka[c] * scale; }
  for (var c = 0u; c < EV_; c++) { dv[key * EV_ + c] = dva[c]; }
}
)";

/// text with every `token` replaced by `name`.
std::string replaced(std::string text, std::string_view token, std::string_view name) {
  for (std::size_t at = text.find(token); at != std::string::npos;
       at = text.find(token, at + name.size()))
    text.replace(at, token.size(), name);
  return text;
}

/// A pass streaming tiles of x and y, its workgroups over n_rows rows of a batch entry.
std::string streaming(const std::string& constants, const std::string& bindings, const char* main,
                      std::string_view x, std::string_view y, std::string_view n_rows) {
  const std::string tiles = replaced(replaced(kLoadTiles, "X_TILE", x), "Y_TILE", y);
  return constants + kAttentionCommon + bindings + tiles + replaced(kEntry, "N_ROWS", n_rows) +
         main;
}

}  // namespace

/// pass's source on geometry's case: its constants, then its text.
std::string attention_source(shader::AttentionPass pass,
                             const shader::AttentionGeometry& geometry) {
  std::string constants = "// ember's wgpu attention (src/backends/wgpu/attention_source.cpp)\n";
  for (const auto& [name, value] : geometry.constants())
    constants += "const " + name + ": u32 = " + std::to_string(value) + "u;\n";
  switch (pass) {
    case shader::AttentionPass::Forward:
      return streaming(constants, kForward, kForwardMain, "k", "v", "p[0]");
    case shader::AttentionPass::Stats:
      return constants + kStats;
    case shader::AttentionPass::GradQ:
      return streaming(constants, std::string(kGradBindings) + kGradQ, kGradQMain, "k", "v",
                       "p[0]");
    case shader::AttentionPass::GradKV:
      return streaming(constants, std::string(kGradBindings) + kGradKV, kGradKVMain, "q", "grad",
                       "p[1]");
  }
  return constants;
}

}  // namespace ember::wgpu
