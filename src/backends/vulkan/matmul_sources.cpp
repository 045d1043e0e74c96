#include "backends/vulkan/matmul_sources.h"

#include <algorithm>
#include <string>

#include "codegen/glsl_program.h"
#include "ember/error.h"

namespace ember::vulkan {
namespace {

/// The types of a kernel on one dtype: its elements in memory, its arithmetic, 4 of those.
struct Types {
  std::string storage;
  std::string scalar;
  std::string vector;
  std::string zero;
};

Types types_of(DType dtype) {
  if (dtype == DType::F32) return {"float", "float", "vec4", "0.0"};
  if (dtype == DType::F64) return {"double", "double", "dvec4", "0.0lf"};
  if (dtype == DType::F16) return {"uint16_t", "float", "vec4", "0.0"};
  throw InvalidArgument("[matmul] the vulkan matmul kernel takes no " +
                        std::string(dtype_name(dtype)));
}

// The batch entry's offsets into each operand, from the parameter words of
// shader/matmul_geometry.h (4 batch dims, outermost first; workgroup z is the entry's chunk of
// k, of p[15] chunks of p[16] elements: k0 to k1); 4 loop turns. c0: the workgroup's output
// plane (a partial result's where k is split).
constexpr const char* kBatchOffsets = R"(  uint entry = gl_WorkGroupID.z / p[15];
  const uint k0 = (gl_WorkGroupID.z % p[15]) * p[16];
  const uint k1 = min(k, k0 + p[16]);
  uint a0 = 0u;
  uint b0 = 0u;
  for (int d = 3; d >= 0; --d) {
    const uint size = p[3 + 3 * d];
    const uint i = entry % size;
    entry /= size;
    a0 += i * p[4 + 3 * d];
    b0 += i * p[5 + 3 * d];
  }
  const uint c0 = gl_WorkGroupID.z * m * n;
)";

// The tiled kernel's body. Invocation (ty, tx) holds rows ty*4.. and columns tx*4.. of the tile;
// lhs_tile[j][r / 4] holds rows r.. r+3 of the tile at k step j, rhs_tile[j][c / 4] columns c..
// c+3. Zeros pad both sides only where k runs out (so an inf or NaN never meets a padding zero
// in a stored output) and where the tile passes m or n (outputs not stored). Loop turns: 4, then
// 17 a step of 16 along the chunk of k, then 20: k + k / 16 + 24 at most.
constexpr const char* kTiledBody = R"(  const uint tid = gl_LocalInvocationIndex;
  const uint row0 = gl_WorkGroupID.y * 64u;
  const uint col0 = gl_WorkGroupID.x * 64u;
  const uint ty = tid >> 4u;
  const uint tx = tid & 15u;
  const uint lhs_r = tid >> 2u;
  const uint lhs_j = (tid & 3u) * 4u;
  const uint rhs_j = tid >> 4u;
  const uint rhs_c = col0 + tx * 4u;
  const uint lhs_i = row0 + lhs_r;
  const bool lhs_row = lhs_i < m;
  precise VEC acc[4] = VEC[4](VEC(ZERO), VEC(ZERO), VEC(ZERO), VEC(ZERO));
  for (uint t = k0; t < k1; t += 16u) {
    const uint j = t + lhs_j;
    lhs_tile[lhs_j][lhs_r >> 2u][lhs_r & 3u] = lhs_row && j < k1 ? load_a(A_AT(lhs_i, j)) : SCALAR(ZERO);
    lhs_tile[lhs_j + 1u][lhs_r >> 2u][lhs_r & 3u] = lhs_row && j + 1u < k1 ? load_a(A_AT(lhs_i, j + 1u)) : SCALAR(ZERO);
    lhs_tile[lhs_j + 2u][lhs_r >> 2u][lhs_r & 3u] = lhs_row && j + 2u < k1 ? load_a(A_AT(lhs_i, j + 2u)) : SCALAR(ZERO);
    lhs_tile[lhs_j + 3u][lhs_r >> 2u][lhs_r & 3u] = lhs_row && j + 3u < k1 ? load_a(A_AT(lhs_i, j + 3u)) : SCALAR(ZERO);
    const uint rhs_k = t + rhs_j;
    const bool rhs_row = rhs_k < k1;
    rhs_tile[rhs_j][tx] = VEC(rhs_row && rhs_c < n ? load_b(B_AT(rhs_k, rhs_c)) : SCALAR(ZERO),
                              rhs_row && rhs_c + 1u < n ? load_b(B_AT(rhs_k, rhs_c + 1u)) : SCALAR(ZERO),
                              rhs_row && rhs_c + 2u < n ? load_b(B_AT(rhs_k, rhs_c + 2u)) : SCALAR(ZERO),
                              rhs_row && rhs_c + 3u < n ? load_b(B_AT(rhs_k, rhs_c + 3u)) : SCALAR(ZERO));
    barrier();
    for (uint s = 0u; s < 16u; ++s) {
      const VEC l = lhs_tile[s][ty];
      const VEC r = rhs_tile[s][tx];
      acc[0] = fma(VEC(l.x), r, acc[0]);
      acc[1] = fma(VEC(l.y), r, acc[1]);
      acc[2] = fma(VEC(l.z), r, acc[2]);
      acc[3] = fma(VEC(l.w), r, acc[3]);
    }
    barrier();
  }
  for (uint i = 0u; i < 4u; ++i) {
    const uint row = row0 + ty * 4u + i;
    for (uint q = 0u; q < 4u; ++q) {
      const uint col = col0 + tx * 4u + q;
      if (row < m && col < n) c[c0 + row * n + col] = stored(acc[i][q]);
    }
  }
}
)";

/// The parameter block and the tensors: the operands of element type in, the result of out.
std::string buffers(const std::string& in, const std::string& out) {
  const auto buffer = [](int binding, const char* access, const char* block,
                         const std::string& type, const char* name) {
    return "layout(std430, set = 0, binding = " + std::to_string(binding) + ") " + access +
           " buffer " + block + " { " + type + " " + name + "[]; };\n";
  };
  return buffer(0, "readonly", "Parameters", "uint", "p") + buffer(1, "readonly", "Lhs", in, "a") +
         buffer(2, "readonly", "Rhs", in, "b") + buffer(3, "writeonly", "Out", out, "c");
}

// The cooperative kernel's shared rows are padded by one 16-byte word, so that the 8 rows of 16
// bytes a subgroup reads at once for an operand fall in different banks (unpadded, the rows of
// either operand are a multiple of 64 bytes apart: 4 to 8 of them share a bank).
constexpr uint32_t kRowPadWords = 1;

uint64_t subgroups(const CooperativeLayout& layout) {
  return uint64_t{layout.subgroup_rows} * layout.subgroup_cols;
}

/// The k of one staged step: layout.k_steps matrices deep.
uint64_t step_k(const CooperativeShape& shape) {
  return uint64_t{shape.layout.k_steps} * shape.k;
}

/// The staging words (uvec4: 8 f16) of one buffer of each operand: a TM x TK lhs and a TK x TN
/// rhs, their rows padded.
uint64_t lhs_stage_words(const CooperativeShape& shape) {
  return cooperative_tile_rows(shape) * (step_k(shape) / 8 + kRowPadWords);
}
uint64_t rhs_stage_words(const CooperativeShape& shape) {
  return step_k(shape) * (cooperative_tile_cols(shape) / 8 + kRowPadWords);
}

/// The words lhs_s declares: its buffers, and at least every subgroup's M x N f32 accumulator,
/// which the results pass through after the last step (the operands' stages are free then).
uint64_t lhs_shared_words(const CooperativeShape& shape) {
  const uint64_t results = subgroups(shape.layout) * shape.m * shape.n / 4;
  return std::max(shape.layout.shared_buffers * lhs_stage_words(shape), results);
}

/// The name of the accumulator of cooperative tile (i, j) of a subgroup.
std::string acc(uint32_t i, uint32_t j) {
  return "acc" + std::to_string(i) + "_" + std::to_string(j);
}

/// The cooperative kernel's products of one staged step, from the buffers at lhs_at and rhs_at.
std::string cooperative_products(const CooperativeLayout& layout) {
  std::string text = "    [[unroll]] for (uint kk = 0u; kk < TK; kk += K) {\n";
  for (uint32_t i = 0; i < layout.tile_rows; ++i)
    text += "      fcoopmatNV<16, gl_ScopeSubgroup, M, K> l" + std::to_string(i) +
            ";\n      coopMatLoadNV(l" + std::to_string(i) + ", lhs_s, lhs_at + (wr + " +
            std::to_string(i) + "u * M) * LHS_STRIDE + kk / 8u, LHS_STRIDE, false);\n";
  for (uint32_t j = 0; j < layout.tile_cols; ++j)
    text += "      fcoopmatNV<16, gl_ScopeSubgroup, K, N> r" + std::to_string(j) +
            ";\n      coopMatLoadNV(r" + std::to_string(j) +
            ", rhs_s, rhs_at + kk * RHS_STRIDE + (wc + " + std::to_string(j) +
            "u * N) / 8u, RHS_STRIDE, false);\n";
  for (uint32_t i = 0; i < layout.tile_rows; ++i)
    for (uint32_t j = 0; j < layout.tile_cols; ++j)
      text += "      " + acc(i, j) + " = coopMatMulAddNV(l" + std::to_string(i) + ", r" +
              std::to_string(j) + ", " + acc(i, j) + ");\n";
  return text + "    }\n";
}

/// The cooperative kernel's main after the batch offsets. The operands are staged zero-padded
/// (k runs out on both sides at once, as in the tiled kernel); the next step's operands are read
/// from memory into registers before this step's products and stored after them, so that the
/// loads' latency hides behind the products: into the other buffer (two buffers, one barrier a
/// step) or, after a barrier, into the same one. Each accumulator then goes through its
/// subgroup's M x N of shared memory, rounded from there and stored where it is inside the
/// result, so every edge is exact. Written out tile by tile (no arrays of cooperative matrices).
std::string cooperative_body(const CooperativeLayout& layout) {
  std::string text = R"(  const uint tid = gl_LocalInvocationIndex;
  const uint row0 = gl_WorkGroupID.y * TM;
  const uint col0 = gl_WorkGroupID.x * TN;
  const uint wr = (gl_SubgroupID / SUBGROUP_COLS) * TILE_ROWS * M;
  const uint wc = (gl_SubgroupID % SUBGROUP_COLS) * TILE_COLS * N;
)";
  for (uint32_t i = 0; i < layout.tile_rows; ++i)
    for (uint32_t j = 0; j < layout.tile_cols; ++j)
      text += "  fcoopmatNV<32, gl_ScopeSubgroup, M, N> " + acc(i, j) +
              " = fcoopmatNV<32, gl_ScopeSubgroup, M, N>(0.0);\n";
  text += R"(  fetch(0u, m, n, k, a0, b0, row0, col0, tid);
  put(0u, 0u, tid);
  barrier();
  uint lhs_at = 0u;
  uint rhs_at = 0u;
  for (uint t = 0u; t < k; t += TK) {
    const bool more = t + TK < k;
    if (more) fetch(t + TK, m, n, k, a0, b0, row0, col0, tid);
)";
  text += cooperative_products(layout);
  text += layout.shared_buffers == 2 ? R"(    lhs_at = LHS_WORDS - lhs_at;
    rhs_at = RHS_WORDS - rhs_at;
)"
                                     : "    barrier();\n";
  text += R"(    if (more) put(lhs_at, rhs_at, tid);
    barrier();
  }
  const uint staged = gl_SubgroupID * M * N;
)";
  for (uint32_t i = 0; i < layout.tile_rows; ++i)
    for (uint32_t j = 0; j < layout.tile_cols; ++j)
      text += "  coopMatStoreNV(" + acc(i, j) + ", lhs_s, staged / 4u, N / 4u, false);\n" +
              "  store_tile(wr + " + std::to_string(i) + "u * M, wc + " + std::to_string(j) +
              "u * N, row0, col0, m, n, c0, staged);\n";
  return text + "}\n";
}

// One subgroup's accumulator, staged as f32 from float staged of lhs_s on, rounded to f16 and
// stored where it lies inside the result (rows r.., columns q.. of the workgroup's tile). The
// barriers order the subgroup's store before its reads, and its reads before the next tile's
// store.
constexpr const char* kStoreTile =
    R"(void store_tile(uint r, uint q, uint row0, uint col0, uint m, uint n, uint c0, uint staged) {
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  for (uint e = gl_SubgroupInvocationID; e < M * N; e += SG) {
    const uint row = row0 + r + e / N;
    const uint col = col0 + q + e % N;
    const float v = uintBitsToFloat(lhs_s[(staged + e) / 4u][(staged + e) % 4u]);
    if (row < m && col < n) c[c0 + row * n + col] = uint16_t(ember_f16_bits(v));
  }
  subgroupBarrier();
}
)";

// The cooperative kernel's staging of the operands' tiles at k = t, zero-padded, in words of 8
// f16: fetch reads this invocation's words into registers, put stores them into the shared
// buffers at lhs_at and rhs_at. kFetchBy8 reads a word a 16-byte load (k and n multiples of 8, so
// that every row of both operands starts on 16 bytes), kFetchByElement element by element.
constexpr const char* kStagedWords = R"(const uint LHS_ROW_WORDS = TK / 8u;
const uint RHS_ROW_WORDS = TN / 8u;
const uint LHS_LOADS = (TM * LHS_ROW_WORDS + WG - 1u) / WG;
const uint RHS_LOADS = (TK * RHS_ROW_WORDS + WG - 1u) / WG;
uvec4 lhs_r[LHS_LOADS];
uvec4 rhs_r[RHS_LOADS];
void put(uint lhs_at, uint rhs_at, uint tid) {
  [[unroll]] for (uint s = 0u; s < LHS_LOADS; ++s) {
    const uint e = tid + s * WG;
    if (e < TM * LHS_ROW_WORDS)
      lhs_s[lhs_at + (e / LHS_ROW_WORDS) * LHS_STRIDE + e % LHS_ROW_WORDS] = lhs_r[s];
  }
  [[unroll]] for (uint s = 0u; s < RHS_LOADS; ++s) {
    const uint e = tid + s * WG;
    if (e < TK * RHS_ROW_WORDS)
      rhs_s[rhs_at + (e / RHS_ROW_WORDS) * RHS_STRIDE + e % RHS_ROW_WORDS] = rhs_r[s];
  }
}
)";
constexpr const char* kFetchBy8 =
    R"(void fetch(uint t, uint m, uint n, uint k, uint a0, uint b0, uint row0, uint col0, uint tid) {
  [[unroll]] for (uint s = 0u; s < LHS_LOADS; ++s) {
    const uint e = tid + s * WG;
    const uint r = row0 + e / LHS_ROW_WORDS;
    const uint j = t + (e % LHS_ROW_WORDS) * 8u;
    lhs_r[s] = e < TM * LHS_ROW_WORDS && r < m && j < k ? a[(a0 + r * k + j) / 8u] : uvec4(0u);
  }
  [[unroll]] for (uint s = 0u; s < RHS_LOADS; ++s) {
    const uint e = tid + s * WG;
    const uint j = t + e / RHS_ROW_WORDS;
    const uint col = col0 + (e % RHS_ROW_WORDS) * 8u;
    rhs_r[s] = e < TK * RHS_ROW_WORDS && j < k && col < n ? b[(b0 + j * n + col) / 8u] : uvec4(0u);
  }
}
)";
constexpr const char* kFetchByElement =
    R"(float16_t lhs_element(uint r, uint j, uint m, uint k, uint a0) {
  return r < m && j < k ? a[a0 + r * k + j] : float16_t(0.0);
}
float16_t rhs_element(uint j, uint col, uint n, uint k, uint b0) {
  return j < k && col < n ? b[b0 + j * n + col] : float16_t(0.0);
}
void fetch(uint t, uint m, uint n, uint k, uint a0, uint b0, uint row0, uint col0, uint tid) {
  [[unroll]] for (uint s = 0u; s < LHS_LOADS; ++s) {
    const uint e = tid + s * WG;
    const uint r = e < TM * LHS_ROW_WORDS ? row0 + e / LHS_ROW_WORDS : m;
    const uint j = t + (e % LHS_ROW_WORDS) * 8u;
    uint w[4];
    [[unroll]] for (uint q = 0u; q < 4u; ++q)
      w[q] = packFloat2x16(f16vec2(lhs_element(r, j + 2u * q, m, k, a0),
                                   lhs_element(r, j + 2u * q + 1u, m, k, a0)));
    lhs_r[s] = uvec4(w[0], w[1], w[2], w[3]);
  }
  [[unroll]] for (uint s = 0u; s < RHS_LOADS; ++s) {
    const uint e = tid + s * WG;
    const uint j = e < TK * RHS_ROW_WORDS ? t + e / RHS_ROW_WORDS : k;
    const uint col = col0 + (e % RHS_ROW_WORDS) * 8u;
    uint w[4];
    [[unroll]] for (uint q = 0u; q < 4u; ++q)
      w[q] = packFloat2x16(f16vec2(rhs_element(j, col + 2u * q, n, k, b0),
                                   rhs_element(j, col + 2u * q + 1u, n, k, b0)));
    rhs_r[s] = uvec4(w[0], w[1], w[2], w[3]);
  }
}
)";

constexpr const char* kCooperativeHeader = R"(#version 450
// ember's vulkan f16 matmul on cooperative matrices (src/backends/vulkan/matmul_sources.cpp)
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require
)";
constexpr const char* kCooperativeShared = R"(shared uvec4 lhs_s[LHS_SHARED];
shared uvec4 rhs_s[BUFFERS * RHS_WORDS];
)";

}  // namespace

std::string tiled_matmul_source(DType dtype, bool lhs_transposed, bool rhs_transposed) {
  const Types t = types_of(dtype);
  const bool half = dtype == DType::F16;
  std::string text =
      "#version 450\n// ember's vulkan matmul (src/backends/vulkan/matmul_sources.cpp)\n";
  if (half) text += "#extension GL_EXT_shader_16bit_storage : require\n";
  text += "#define SCALAR " + t.scalar + "\n#define VEC " + t.vector + "\n#define ZERO " + t.zero +
          "\n";
  text += "layout(local_size_x = 256) in;\n";
  // Where an operand's element (row r, column j) lies: row-major, or its transpose's.
  text += lhs_transposed ? "#define A_AT(r, j) (a0 + (j) * m + (r))\n"
                         : "#define A_AT(r, j) (a0 + (r) * k + (j))\n";
  text += rhs_transposed ? "#define B_AT(r, j) (b0 + (j) * k + (r))\n"
                         : "#define B_AT(r, j) (b0 + (r) * n + (j))\n";
  text += buffers(t.storage, t.storage);
  text += "shared VEC lhs_tile[16][16];\nshared VEC rhs_tile[16][16];\n";
  if (half) {
    text += codegen::glsl_f16_bits_helper();
    text += "float load_a(uint i) { return unpackHalf2x16(uint(a[i])).x; }\n";
    text += "float load_b(uint i) { return unpackHalf2x16(uint(b[i])).x; }\n";
    text += "uint16_t stored(float v) { return uint16_t(ember_f16_bits(v)); }\n";
  } else {
    text += "SCALAR load_a(uint i) { return a[i]; }\nSCALAR load_b(uint i) { return b[i]; }\n";
    text += "SCALAR stored(SCALAR v) { return v; }\n";
  }
  text += "void main() {\n  const uint m = p[0];\n  const uint n = p[1];\n  const uint k = p[2];\n";
  text += kBatchOffsets;
  return text + kTiledBody;
}

std::string matmul_partials_sum_source(DType dtype) {
  const Types t = types_of(dtype);
  if (dtype == DType::F16)
    throw InvalidArgument("[matmul] the vulkan matmul splits no f16 product's k");
  return "#version 450\n// ember's vulkan matmul's sum of k's chunks "
         "(src/backends/vulkan/matmul_sources.cpp)\n#define SCALAR " +
         t.scalar + "\nlayout(local_size_x = 256) in;\n" +
         R"(layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer Partials { SCALAR a[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { SCALAR c[]; };
void main() {
  const uint n = p[0];
  const uint splits = p[1];
  const uint plane = p[2];
  for (uint e = gl_GlobalInvocationID.x; e < n; e += gl_NumWorkGroups.x * 256u) {
    const uint first = (e / plane) * splits * plane + e % plane;
    SCALAR total = a[first];
    for (uint q = 1u; q < splits; ++q) total += a[first + q * plane];
    c[e] = total;
  }
}
)";
}

std::string cooperative_matmul_source(const CooperativeShape& shape, bool aligned) {
  const auto define = [](const char* name, uint64_t value) {
    return "#define " + std::string(name) + " " + std::to_string(value) + "\n";
  };
  const CooperativeLayout& layout = shape.layout;
  std::string text = kCooperativeHeader;
  text += define("SG", shape.subgroup_size) + define("M", shape.m) + define("N", shape.n) +
          define("K", shape.k) + define("TM", cooperative_tile_rows(shape)) +
          define("TN", cooperative_tile_cols(shape)) + define("TK", step_k(shape)) +
          define("WG", cooperative_workgroup(shape)) +
          define("SUBGROUP_COLS", layout.subgroup_cols) + define("TILE_ROWS", layout.tile_rows) +
          define("TILE_COLS", layout.tile_cols) + define("BUFFERS", layout.shared_buffers) +
          define("LHS_STRIDE", step_k(shape) / 8 + kRowPadWords) +
          define("RHS_STRIDE", cooperative_tile_cols(shape) / 8 + kRowPadWords) +
          define("LHS_WORDS", lhs_stage_words(shape)) +
          define("RHS_WORDS", rhs_stage_words(shape)) +
          define("LHS_SHARED", lhs_shared_words(shape));
  text += "layout(local_size_x = WG) in;\n";
  text += buffers(aligned ? "uvec4" : "float16_t", "uint16_t");
  text += kCooperativeShared;
  text += kStagedWords;
  text += aligned ? kFetchBy8 : kFetchByElement;
  text += codegen::glsl_f16_bits_helper();
  text += kStoreTile;
  text += "void main() {\n  const uint m = p[0];\n  const uint n = p[1];\n  const uint k = p[2];\n";
  text += kBatchOffsets;
  return text + cooperative_body(layout);
}

uint64_t cooperative_tile_rows(const CooperativeShape& shape) {
  return uint64_t{shape.layout.subgroup_rows} * shape.layout.tile_rows * shape.m;
}

uint64_t cooperative_tile_cols(const CooperativeShape& shape) {
  return uint64_t{shape.layout.subgroup_cols} * shape.layout.tile_cols * shape.n;
}

uint64_t cooperative_workgroup(const CooperativeShape& shape) {
  return subgroups(shape.layout) * shape.subgroup_size;
}

uint64_t cooperative_shared_bytes(const CooperativeShape& shape) {
  return (lhs_shared_words(shape) + shape.layout.shared_buffers * rhs_stage_words(shape)) * 16;
}

}  // namespace ember::vulkan
