#include "backends/vulkan/attention_source.h"

#include <string>

namespace ember::vulkan {
namespace {

/// The bindings the forward and gradient passes share (q, k, v, the mask as words), the score of
/// a query and a key, and the two tiles of shared memory.
constexpr const char* kAttentionCommon = R"(
layout(local_size_x = ROWS) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer Q { float q[]; };
layout(std430, set = 0, binding = 2) readonly buffer K { float k[]; };
layout(std430, set = 0, binding = 3) readonly buffer V { float v[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mask { uint mask_words[]; };
#define NEG_INF uintBitsToFloat(0xff800000u)
shared float xs[TILE * E_];
shared float ys[TILE * EV_];
bool is_neg_inf(float x) { return floatBitsToUint(x) == 0xff800000u; }
// The mask's offset of batch entry b: its coordinates (innermost last) times their strides.
uint mask_base(uint b) {
  uint base = 0u;
  for (uint d = p[6]; d > 0u; --d) {
    const uint size = p[5u + 2u * d];
    base += (b % size) * p[6u + 2u * d];
    b /= size;
  }
  return base;
}
// The score of query i and key j from their dot product: -inf where masked out, or not valid.
float score(float product, uint base, uint i, uint j, bool valid) {
  if (!valid || (CAUSAL != 0 && j > i)) return NEG_INF;
  const uint at = base + i * p[3] + j * p[4];
  const float scaled = product * uintBitsToFloat(p[2]);
  if (MASK_KIND == 1) {
    const uint byte = (mask_words[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu;
    return byte != 0u ? scaled : NEG_INF;
  }
  if (MASK_KIND == 2) return scaled + uintBitsToFloat(mask_words[at]);
  return scaled;
}
// Where a workgroup of ROWS rows (queries, or keys) of n stands: its batch entry, its first row,
// this invocation's row.
struct Block { uint b; uint r0; uint r; };
Block block_of(uint n) {
  const uint blocks = (n + ROWS - 1u) / ROWS;
  const uint r0 = (gl_WorkGroupID.x % blocks) * ROWS;
  return Block(gl_WorkGroupID.x / blocks, r0, r0 + gl_LocalInvocationID.x);
}
// The dot products of a row of E_ with row r of xs, and of a row of EV_ with row r of ys.
float x_dot(const float a[E_], uint r) {
  float sum = 0.0;
  for (uint c = 0u; c < E_; ++c) sum += a[c] * xs[r * E_ + c];
  return sum;
}
float y_dot(const float a[EV_], uint r) {
  float sum = 0.0;
  for (uint c = 0u; c < EV_; ++c) sum += a[c] * ys[r * EV_ + c];
  return sum;
}
// The keys the queries [i0, i0 + ROWS) read: under CAUSAL none past its last query.
uint keys_of(uint i0) { return CAUSAL != 0 ? min(p[1], i0 + ROWS) : p[1]; }
)";

/// Rows [r0, r0 + TILE) of the batch entry's rows from `first` of x (E_ wide) and y (EV_ wide)
/// into xs and ys (zeros past n), between two barriers: GLSL passes no buffers, so each pass
/// names its own through X_TILE and Y_TILE.
constexpr const char* kLoadTiles = R"(
void load_tiles(uint first, uint r0, uint n) {
  barrier();
  for (uint t = gl_LocalInvocationID.x; t < TILE * E_; t += ROWS)
    xs[t] = r0 + t / E_ < n ? X_TILE[(first + r0) * E_ + t] : 0.0;
  for (uint t = gl_LocalInvocationID.x; t < TILE * EV_; t += ROWS)
    ys[t] = r0 + t / EV_ < n ? Y_TILE[(first + r0) * EV_ + t] : 0.0;
  barrier();
}
)";

/// The start of a pass's main: where its workgroup of ROWS rows of N_ROWS (its #define) stands,
/// whether this invocation's row is one, the batch entry's mask offset.
constexpr const char* kEntry = R"(
void main() {
  const Block at = block_of(N_ROWS);
  const bool valid = at.r < N_ROWS;
  const uint base = mask_base(at.b);
)";

/// The forward: each query's online softmax over the key tiles, its result and lse written once.
constexpr const char* kForward = R"(
layout(std430, set = 0, binding = 5) writeonly buffer Result { float result[]; };
layout(std430, set = 0, binding = 6) writeonly buffer Lse { float lse[]; };
#define X_TILE k
#define Y_TILE v
#define N_ROWS p[0]
)";
constexpr const char* kForwardMain = R"(
  const uint row = at.b * p[0] + at.r;
  float qr[E_];
  for (uint c = 0u; c < E_; ++c) qr[c] = valid ? q[row * E_ + c] : 0.0;
  float acc[EV_];
  for (uint c = 0u; c < EV_; ++c) acc[c] = 0.0;
  float m = NEG_INF;
  float sum = 0.0;
  const uint keys = keys_of(at.r0);
  for (uint j0 = 0u; j0 < keys; j0 += TILE) {
    load_tiles(at.b * p[1], j0, p[1]);
    float scores[TILE];
    float tile_max = NEG_INF;
    for (uint jj = 0u; jj < TILE; ++jj) {
      scores[jj] = score(x_dot(qr, jj), base, at.r, j0 + jj, valid && j0 + jj < p[1]);
      tile_max = max(tile_max, scores[jj]);
    }
    const float m_new = max(m, tile_max);
    // Nothing to attend yet: exponents from 0 keep every weight 0 instead of NaN.
    const float shift = is_neg_inf(m_new) ? 0.0 : m_new;
    const float rescale = exp(m - shift);
    sum *= rescale;
    for (uint c = 0u; c < EV_; ++c) acc[c] *= rescale;
    for (uint jj = 0u; jj < TILE; ++jj) {
      const float weight = exp(scores[jj] - shift);
      sum += weight;
      for (uint c = 0u; c < EV_; ++c) acc[c] += weight * ys[jj * EV_ + c];
    }
    m = m_new;
  }
  if (!valid) return;
  // sum == 0 (nothing attended): 0 * inf is NaN, as the composite's softmax; lse is -inf.
  const float inverse = 1.0 / sum;
  for (uint c = 0u; c < EV_; ++c) result[row * EV_ + c] = acc[c] * inverse;
  lse[row] = m + log(sum);
}
)";

/// The stats pass: each query row's lse and D = rowsum(grad_out * out), side by side.
constexpr const char* kStats = R"(
layout(local_size_x = ROWS) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer Result { float result[]; };
layout(std430, set = 0, binding = 2) readonly buffer Grad { float grad[]; };
layout(std430, set = 0, binding = 3) readonly buffer Lse { float lse[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Stats { float stats[]; };
void main() {
  const uint row = gl_GlobalInvocationID.x;
  if (row >= p[5] * p[0]) return;
  float d = 0.0;
  for (uint c = 0u; c < EV_; ++c) d += grad[row * EV_ + c] * result[row * EV_ + c];
  stats[2u * row] = lse[row];
  stats[2u * row + 1u] = d;
}
)";

/// The bindings both gradient passes read after q, k, v and the mask: the stats and grad_out.
constexpr const char* kGradBindings = R"(
layout(std430, set = 0, binding = 5) readonly buffer Stats { float stats[]; };
layout(std430, set = 0, binding = 6) readonly buffer Grad { float grad[]; };
)";

/// dQ: each query streams the key tiles, P recomputed from its lse.
constexpr const char* kGradQ = R"(
layout(std430, set = 0, binding = 7) writeonly buffer GradQ { float dq[]; };
#define X_TILE k
#define Y_TILE v
#define N_ROWS p[0]
)";
constexpr const char* kGradQMain = R"(
  const uint row = at.b * p[0] + at.r;
  float qr[E_];
  float acc[E_];
  for (uint c = 0u; c < E_; ++c) {
    qr[c] = valid ? q[row * E_ + c] : 0.0;
    acc[c] = 0.0;
  }
  float gr[EV_];
  for (uint c = 0u; c < EV_; ++c) gr[c] = valid ? grad[row * EV_ + c] : 0.0;
  // A query past the end weighs exp(-inf - 0) = 0.
  const float row_lse = valid ? stats[2u * row] : 0.0;
  const float d = valid ? stats[2u * row + 1u] : 0.0;
  const uint keys = keys_of(at.r0);
  for (uint j0 = 0u; j0 < keys; j0 += TILE) {
    load_tiles(at.b * p[1], j0, p[1]);
    for (uint jj = 0u; jj < TILE; ++jj) {
      const float s = score(x_dot(qr, jj), base, at.r, j0 + jj, valid && j0 + jj < p[1]);
      const float ds = exp(s - row_lse) * (y_dot(gr, jj) - d);
      for (uint c = 0u; c < E_; ++c) acc[c] += ds * xs[jj * E_ + c];
    }
  }
  if (!valid) return;
  const float scale = uintBitsToFloat(p[2]);
  for (uint c = 0u; c < E_; ++c) dq[row * E_ + c] = acc[c] * scale;
}
)";

/// dK and dV: each key streams the query tiles (q and grad_out) with their rows' lse and D.
constexpr const char* kGradKV = R"(
layout(std430, set = 0, binding = 7) writeonly buffer GradK { float dk[]; };
layout(std430, set = 0, binding = 8) writeonly buffer GradV { float dv[]; };
#define X_TILE q
#define Y_TILE grad
#define N_ROWS p[1]
)";
constexpr const char* kGradKVMain = R"(
  const uint key = at.b * p[1] + at.r;
  float kr[E_];
  float dka[E_];
  for (uint c = 0u; c < E_; ++c) {
    kr[c] = valid ? k[key * E_ + c] : 0.0;
    dka[c] = 0.0;
  }
  float vr[EV_];
  float dva[EV_];
  for (uint c = 0u; c < EV_; ++c) {
    vr[c] = valid ? v[key * EV_ + c] : 0.0;
    dva[c] = 0.0;
  }
  // Under CAUSAL, queries before the block's first key attend none of its keys.
  for (uint i0 = CAUSAL != 0 ? at.r0 : 0u; i0 < p[0]; i0 += TILE) {
    load_tiles(at.b * p[0], i0, p[0]);
    for (uint ii = 0u; ii < TILE; ++ii) {
      const uint i = i0 + ii;
      const bool query = i < p[0];
      const float s = score(x_dot(kr, ii), base, i, at.r, valid && query);
      // A query past the end weighs exp(-inf - 0) = 0.
      const uint stat = 2u * (at.b * p[0] + i);
      const float weight = exp(s - (query ? stats[stat] : 0.0));
      const float ds = weight * (y_dot(vr, ii) - (query ? stats[stat + 1u] : 0.0));
      for (uint c = 0u; c < EV_; ++c) dva[c] += weight * ys[ii * EV_ + c];
      for (uint c = 0u; c < E_; ++c) dka[c] += ds * xs[ii * E_ + c];
    }
  }
  if (!valid) return;
  const float scale = uintBitsToFloat(p[2]);
  for (uint c = 0u; c < E_; ++c) dk[key * E_ + c] = dka[c] * scale;
  for (uint c = 0u; c < EV_; ++c) dv[key * EV_ + c] = dva[c];
}
)";

}  // namespace

/// pass's source on geometry's case: its constants as #defines, then its text.
std::string attention_source(shader::AttentionPass pass,
                             const shader::AttentionGeometry& geometry) {
  std::string source =
      "#version 450\n// ember's vulkan attention (src/backends/vulkan/attention_source.cpp)\n";
  for (const auto& [name, value] : geometry.constants())
    source += "#define " + name + " " + std::to_string(value) + "u\n";
  const auto streaming = [&](const std::string& bindings, const char* main) {
    return source + kAttentionCommon + bindings + kLoadTiles + kEntry + main;
  };
  switch (pass) {
    case shader::AttentionPass::Forward:
      return streaming(kForward, kForwardMain);
    case shader::AttentionPass::Stats:
      return source + kStats;
    case shader::AttentionPass::GradQ:
      return streaming(std::string(kGradBindings) + kGradQ, kGradQMain);
    case shader::AttentionPass::GradKV:
      return streaming(std::string(kGradBindings) + kGradKV, kGradKVMain);
  }
  return source;
}

}  // namespace ember::vulkan
