#include "backends/cuda/attention_kernels.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "backends/cuda/kernel_sources.h"

namespace ember::cuda {
namespace {

// What every attention kernel shares, after the shape's #defines: the parameter struct, the
// 8-thread row groups' sums, the mask and the tiles.
constexpr std::string_view kCommon = R"(
#define ROWS 32
#define GROUP 8
#define PER_E ((E_ + GROUP - 1) / GROUP)
#define PER_V ((EV_ + GROUP - 1) / GROUP)
#define EP (PER_E * GROUP)
#define EVP (PER_V * GROUP)
#define NEG_INF __int_as_float(0xff800000)

struct ember_attention {
  long long l, s, mask_inner, mask_outer_stride, mask_inner_stride, mask_row_stride,
      mask_col_stride;
  double scale;
};

// The sum over the 8 threads of a row group (consecutive lanes), in every one of them.
__device__ __forceinline__ float ember_group_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 4);
  x += __shfl_xor_sync(0xffffffffu, x, 2);
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x;
}

__device__ __forceinline__ long long ember_mask_base(const ember_attention& p, long long b) {
  return (b / p.mask_inner) * p.mask_outer_stride + (b % p.mask_inner) * p.mask_inner_stride;
}

// The score of query i and key j from q . k (-inf where masked out or past the ends).
__device__ __forceinline__ float ember_score(float dot, const void* mask, const ember_attention& p,
                                             long long base, long long i, long long j,
                                             bool valid) {
  if (!valid) return NEG_INF;
#if CAUSAL
  if (j > i) return NEG_INF;
#endif
  const long long at = base + i * p.mask_row_stride + j * p.mask_col_stride;
#if MASK_KIND == 1
  if (!((const unsigned char*)mask)[at]) return NEG_INF;
  return dot * (float)p.scale;
#elif MASK_KIND == 2
  return fmaf(dot, (float)p.scale, x_load(((const x_t*)mask)[at]));
#else
  (void)mask;
  (void)at;
  return dot * (float)p.scale;
#endif
}

// Rows [r0, r0 + ROWS) of the rows [n, WIDTH] starting at row `first` of x, in f32, each padded
// to PADDED with zeros (zero rows past n): a tile every thread of the block loads a part of.
template <int WIDTH, int PADDED>
__device__ __forceinline__ void ember_load_tile(float* tile, const x_t* x, long long first,
                                                long long r0, long long n) {
  for (int t = threadIdx.x; t < ROWS * PADDED; t += blockDim.x) {
    const int r = t / PADDED;
    const int c = t % PADDED;
    tile[t] = c < WIDTH && r0 + r < n ? x_load(x[(first + r0 + r) * WIDTH + c]) : 0.0f;
  }
}

// This thread's elements lane, lane + 8, ... of a row of WIDTH (zeros past it, or when !ok).
template <int WIDTH, int PER>
__device__ __forceinline__ void ember_load_slice(float (&dst)[PER], const x_t* row, bool ok,
                                                 int lane) {
#pragma unroll
  for (int e = 0; e < PER; ++e) {
    const int c = lane + GROUP * e;
    dst[e] = ok && c < WIDTH ? x_load(row[c]) : 0.0f;
  }
}

template <int WIDTH, int PER>
__device__ __forceinline__ void ember_store_slice(x_t* row, const float (&src)[PER], float factor,
                                                  int lane) {
#pragma unroll
  for (int e = 0; e < PER; ++e) {
    const int c = lane + GROUP * e;
    if (c < WIDTH) row[c] = x_store((double)(src[e] * factor));
  }
}

template <int PER>
__device__ __forceinline__ void ember_zero(float (&x)[PER]) {
#pragma unroll
  for (int e = 0; e < PER; ++e)
    x[e] = 0.0f;
}

// The row group's dot product of its slice a with a tile's row (every lane gets it).
template <int PER>
__device__ __forceinline__ float ember_dot(const float (&a)[PER], const float* tile_row,
                                           int lane) {
  float sum = 0.0f;
#pragma unroll
  for (int e = 0; e < PER; ++e)
    sum = fmaf(a[e], tile_row[lane + GROUP * e], sum);
  return ember_group_sum(sum);
}

// acc += weight * a tile's row (this thread's slice).
template <int PER>
__device__ __forceinline__ void ember_add_row(float (&acc)[PER], float weight,
                                              const float* tile_row, int lane) {
#pragma unroll
  for (int e = 0; e < PER; ++e)
    acc[e] = fmaf(weight, tile_row[lane + GROUP * e], acc[e]);
}

// Where a block of ROWS rows (queries, or keys) of n stands: batch entry b, its first row r0, this
// thread's row r (valid: r < n), its lane in the row's group, and the entry's mask offset.
struct ember_block {
  long long b, r0, r, base;
  int lane;
  bool valid;
};

__device__ __forceinline__ ember_block ember_block_of(const ember_attention& p, long long n) {
  const long long tiles = (n + ROWS - 1) / ROWS;
  ember_block at;
  at.b = blockIdx.x / tiles;
  at.r0 = (blockIdx.x % tiles) * ROWS;
  at.r = at.r0 + threadIdx.x / GROUP;
  at.lane = threadIdx.x % GROUP;
  at.valid = at.r < n;
  at.base = ember_mask_base(p, at.b);
  return at;
}

// Tile r0 of the rows [n, E_] of x and [n, EV_] of y (a batch entry's, from row `first`) into xt
// and yt, between two barriers: the block has finished with the previous tiles, and sees these.
__device__ __forceinline__ void ember_load_tiles(float* xt, float* yt, const x_t* x, const x_t* y,
                                                 long long first, long long r0, long long n) {
  __syncthreads();
  ember_load_tile<E_, EP>(xt, x, first, r0, n);
  ember_load_tile<EV_, EVP>(yt, y, first, r0, n);
  __syncthreads();
}

// The keys a block of queries [i0, i0 + ROWS) reads: under CAUSAL none past its last query.
__device__ __forceinline__ long long ember_keys(const ember_attention& p, long long i0) {
#if CAUSAL
  return min(p.s, i0 + ROWS);
#else
  (void)i0;
  return p.s;
#endif
}
)";

// A block of 32 query rows: K and V tiles through shared memory, the online softmax of each row
// in its group's registers (every lane holds the row's running maximum and sum).
constexpr std::string_view kForward = R"(
extern "C" __global__ void __launch_bounds__(256)
    ember_attention_forward(const x_t* q, const x_t* k, const x_t* v, const void* mask, x_t* out,
                            float* lse, ember_attention p) {
  __shared__ float ks[ROWS * EP];
  __shared__ float vs[ROWS * EVP];
  const ember_block at = ember_block_of(p, p.l);
  const long long row = at.b * p.l + at.r;
  float qr[PER_E];
  ember_load_slice<E_, PER_E>(qr, q + row * E_, at.valid, at.lane);
  float acc[PER_V];
  ember_zero(acc);
  float m = NEG_INF;
  float sum = 0.0f;
  const long long keys = ember_keys(p, at.r0);
  for (long long j0 = 0; j0 < keys; j0 += ROWS) {
    ember_load_tiles(ks, vs, k, v, at.b * p.s, j0, p.s);
    float scores[ROWS];
    float tile_max = NEG_INF;
#pragma unroll
    for (int jj = 0; jj < ROWS; ++jj) {
      const float dot = ember_dot<PER_E>(qr, ks + jj * EP, at.lane);
      scores[jj] =
          ember_score(dot, mask, p, at.base, at.r, j0 + jj, at.valid && j0 + jj < p.s);
      tile_max = fmaxf(tile_max, scores[jj]);
    }
    const float m_new = fmaxf(m, tile_max);
    // Nothing to attend yet: exponents from 0 keep every weight 0 instead of NaN.
    const float shift = m_new == NEG_INF ? 0.0f : m_new;
    const float rescale = expf(m - shift);
    sum *= rescale;
#pragma unroll
    for (int c = 0; c < PER_V; ++c)
      acc[c] *= rescale;
#pragma unroll
    for (int jj = 0; jj < ROWS; ++jj) {
      const float weight = expf(scores[jj] - shift);
      sum += weight;
      ember_add_row<PER_V>(acc, weight, vs + jj * EVP, at.lane);
    }
    m = m_new;
  }
  if (!at.valid) return;
  // sum == 0 (nothing attended): 0 * inf is NaN, as the composite's softmax; lse is -inf.
  ember_store_slice<EV_, PER_V>(out + row * EV_, acc, 1.0f / sum, at.lane);
  if (at.lane == 0) lse[row] = m + logf(sum);
}
)";

// dQ: a block of 32 query rows as the forward's, P recomputed from lse; writes D for dK, dV.
// dK, dV: a block of 32 keys, Q and dO tiles through shared memory, each row's lse and D read
// by every thread at once (one cached load).
constexpr std::string_view kBackward = R"(
// This thread's slices of row `row` of x [.., E_] and of y [.., EV_].
__device__ __forceinline__ void ember_load_row(float (&xs)[PER_E], float (&ys)[PER_V],
                                               const x_t* x, const x_t* y, long long row,
                                               const ember_block& at) {
  ember_load_slice<E_, PER_E>(xs, x + row * E_, at.valid, at.lane);
  ember_load_slice<EV_, PER_V>(ys, y + row * EV_, at.valid, at.lane);
}

extern "C" __global__ void __launch_bounds__(256)
    ember_attention_dq(const x_t* q, const x_t* k, const x_t* v, const void* mask, const x_t* out,
                       const float* lse, const x_t* grad, x_t* dq, float* delta,
                       ember_attention p) {
  __shared__ float ks[ROWS * EP];
  __shared__ float vs[ROWS * EVP];
  const ember_block at = ember_block_of(p, p.l);
  const long long row = at.b * p.l + at.r;
  float qr[PER_E];
  float gr[PER_V];
  ember_load_row(qr, gr, q, grad, row, at);
  float d = 0.0f;
  {
    float o[PER_V];
    ember_load_slice<EV_, PER_V>(o, out + row * EV_, at.valid, at.lane);
#pragma unroll
    for (int c = 0; c < PER_V; ++c)
      d = fmaf(gr[c], o[c], d);
    d = ember_group_sum(d);
  }
  const float row_lse = at.valid ? lse[row] : 0.0f;
  if (at.valid && at.lane == 0) delta[row] = d;
  float acc[PER_E];
  ember_zero(acc);
  const long long keys = ember_keys(p, at.r0);
  for (long long j0 = 0; j0 < keys; j0 += ROWS) {
    ember_load_tiles(ks, vs, k, v, at.b * p.s, j0, p.s);
#pragma unroll 4
    for (int jj = 0; jj < ROWS; ++jj) {
      const float dot = ember_dot<PER_E>(qr, ks + jj * EP, at.lane);
      const float dp = ember_dot<PER_V>(gr, vs + jj * EVP, at.lane);
      const float s = ember_score(dot, mask, p, at.base, at.r, j0 + jj, at.valid && j0 + jj < p.s);
      const float weight = expf(s - row_lse);
      ember_add_row<PER_E>(acc, weight * (dp - d), ks + jj * EP, at.lane);
    }
  }
  if (at.valid) ember_store_slice<E_, PER_E>(dq + row * E_, acc, (float)p.scale, at.lane);
}

extern "C" __global__ void __launch_bounds__(256)
    ember_attention_dkdv(const x_t* q, const x_t* k, const x_t* v, const void* mask,
                         const float* lse, const x_t* grad, const float* delta, x_t* dk, x_t* dv,
                         ember_attention p) {
  __shared__ float qs[ROWS * EP];
  __shared__ float gs[ROWS * EVP];
  const ember_block at = ember_block_of(p, p.s);
  const long long key = at.b * p.s + at.r;
  float kr[PER_E];
  float vr[PER_V];
  ember_load_row(kr, vr, k, v, key, at);
  float dka[PER_E];
  ember_zero(dka);
  float dva[PER_V];
  ember_zero(dva);
#if CAUSAL
  const long long first = at.r0;  // queries before the block's first key attend none of its keys
#else
  const long long first = 0;
#endif
  for (long long i0 = first; i0 < p.l; i0 += ROWS) {
    ember_load_tiles(qs, gs, q, grad, at.b * p.l, i0, p.l);
#pragma unroll 4
    for (int ii = 0; ii < ROWS; ++ii) {
      const long long i = i0 + ii;
      const bool query = i < p.l;
      const float dot = ember_dot<PER_E>(kr, qs + ii * EP, at.lane);
      const float dp = ember_dot<PER_V>(vr, gs + ii * EVP, at.lane);
      const float s = ember_score(dot, mask, p, at.base, i, at.r, at.valid && query);
      // A query past the end weighs exp(-inf - 0) = 0.
      const float weight = expf(s - (query ? lse[at.b * p.l + i] : 0.0f));
      const float d = query ? delta[at.b * p.l + i] : 0.0f;
      ember_add_row<PER_V>(dva, weight, gs + ii * EVP, at.lane);
      ember_add_row<PER_E>(dka, weight * (dp - d), qs + ii * EP, at.lane);
    }
  }
  if (!at.valid) return;
  ember_store_slice<E_, PER_E>(dk + key * E_, dka, (float)p.scale, at.lane);
  ember_store_slice<EV_, PER_V>(dv + key * EV_, dva, 1.0f, at.lane);
}
)";

// The tensor-core forward (f16, bf16; E a multiple of 16, Ev of 8): FlashAttention-2's layout on
// mma.sync.m16n8k16 (f32 accumulation). A block of 4 warps takes 64 query rows, a warp 16 of them:
// its Q fragments stay in registers, S = Q K^T comes out in accumulator fragments (a thread holds
// rows g and g + 8, keys 2t and 2t + 1 of each 8), the online softmax takes each row's maximum and
// sum across the 4 threads of its quad, and P, rounded to the input dtype, is the A operand of
// O += P V as it lies in the registers. K is kept in shared memory as it is (a thread's B fragment
// of K^T is two consecutive elements of a K row), V transposed (the same for V); rows are padded
// by 8 elements so that the 8 rows a fragment load touches fall in distinct banks.
constexpr std::string_view kForwardMma = R"(
#define MROWS 64
#define KEYS 32
#define KP (E_ + 8)
#define VP (KEYS + 8)

__device__ __forceinline__ void ember_mma(float (&c)[4], const unsigned (&a)[4], unsigned b0,
                                          unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." MMA_TYPE "." MMA_TYPE ".f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// lo and hi rounded to the dtype, lo in the low half (the lower column of a fragment pair).
__device__ __forceinline__ unsigned ember_pack(float lo, float hi) {
  return (unsigned)x_store16(lo) | ((unsigned)x_store16(hi) << 16);
}

// Elements col and col + 1 of row `row` of x [n, E_] (zeros past n).
__device__ __forceinline__ unsigned ember_pair(const x_t* x, long long row, long long n, int col) {
  return row < n ? *(const unsigned*)(x + row * E_ + col) : 0u;
}

// The 32 bits at element `at` of a shared tile.
__device__ __forceinline__ unsigned ember_shared_pair(const x_t* tile, int at) {
  return *(const unsigned*)(tile + at);
}

extern "C" __global__ void __launch_bounds__(128)
    ember_attention_forward(const x_t* q, const x_t* k, const x_t* v, const void* mask, x_t* out,
                            float* lse, ember_attention p) {
  alignas(16) __shared__ x_t ks[KEYS * KP];
  alignas(16) __shared__ x_t vt[EV_ * VP];
  const long long tiles = (p.l + MROWS - 1) / MROWS;
  const long long b = blockIdx.x / tiles;
  const long long q0 = (blockIdx.x % tiles) * MROWS;
  const int g = (threadIdx.x % 32) / 4;
  const int t = threadIdx.x % 4;
  const long long rows[2] = {q0 + threadIdx.x / 32 * 16 + g, q0 + threadIdx.x / 32 * 16 + g + 8};
  const long long base = ember_mask_base(p, b);
  unsigned qa[E_ / 16][4];
#pragma unroll
  for (int kk = 0; kk < E_ / 16; ++kk) {
    qa[kk][0] = ember_pair(q, b * p.l + rows[0], b * p.l + p.l, kk * 16 + 2 * t);
    qa[kk][1] = ember_pair(q, b * p.l + rows[1], b * p.l + p.l, kk * 16 + 2 * t);
    qa[kk][2] = ember_pair(q, b * p.l + rows[0], b * p.l + p.l, kk * 16 + 2 * t + 8);
    qa[kk][3] = ember_pair(q, b * p.l + rows[1], b * p.l + p.l, kk * 16 + 2 * t + 8);
  }
  float o[EV_ / 8][4];
#pragma unroll
  for (int n = 0; n < EV_ / 8; ++n)
    o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
  float m[2] = {NEG_INF, NEG_INF};
  float sum[2] = {0.0f, 0.0f};
#if CAUSAL
  const long long keys = min(p.s, q0 + MROWS);
#else
  const long long keys = p.s;
#endif
  for (long long j0 = 0; j0 < keys; j0 += KEYS) {
    __syncthreads();
    for (int x = threadIdx.x; x < KEYS * E_; x += blockDim.x) {
      const int j = x / E_;
      ks[j * KP + x % E_] = j0 + j < p.s ? k[(b * p.s + j0 + j) * E_ + x % E_] : (x_t)0;
    }
    for (int x = threadIdx.x; x < KEYS * EV_; x += blockDim.x) {
      const int j = x / EV_;
      vt[x % EV_ * VP + j] = j0 + j < p.s ? v[(b * p.s + j0 + j) * EV_ + x % EV_] : (x_t)0;
    }
    __syncthreads();
    float s[KEYS / 8][4];
    float tile_max[2] = {NEG_INF, NEG_INF};
#pragma unroll
    for (int n = 0; n < KEYS / 8; ++n) {
      s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
      for (int kk = 0; kk < E_ / 16; ++kk) {
        const int at = (n * 8 + g) * KP + kk * 16 + 2 * t;
        ember_mma(s[n], qa[kk], ember_shared_pair(ks, at), ember_shared_pair(ks, at + 8));
      }
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const long long i = rows[e / 2];
        const long long j = j0 + n * 8 + 2 * t + e % 2;
        s[n][e] = ember_score(s[n][e], mask, p, base, i, j, i < p.l && j < p.s);
        tile_max[e / 2] = fmaxf(tile_max[e / 2], s[n][e]);
      }
    }
    float shift[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      // The row's maximum over its quad (the 4 threads holding its keys).
      tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 1));
      tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 2));
      const float m_new = fmaxf(m[r], tile_max[r]);
      // Nothing to attend yet: exponents from 0 keep every weight 0 instead of NaN.
      shift[r] = m_new == NEG_INF ? 0.0f : m_new;
      const float rescale = expf(m[r] - shift[r]);
      sum[r] *= rescale;
#pragma unroll
      for (int n = 0; n < EV_ / 8; ++n) {
        o[n][2 * r] *= rescale;
        o[n][2 * r + 1] *= rescale;
      }
      m[r] = m_new;
    }
#pragma unroll
    for (int n = 0; n < KEYS / 8; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        s[n][e] = expf(s[n][e] - shift[e / 2]);
        sum[e / 2] += s[n][e];
      }
    }
#pragma unroll
    for (int kk = 0; kk < KEYS / 16; ++kk) {
      const unsigned pa[4] = {ember_pack(s[2 * kk][0], s[2 * kk][1]),
                              ember_pack(s[2 * kk][2], s[2 * kk][3]),
                              ember_pack(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                              ember_pack(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int n = 0; n < EV_ / 8; ++n) {
        const int at = (n * 8 + g) * VP + kk * 16 + 2 * t;
        ember_mma(o[n], pa, ember_shared_pair(vt, at), ember_shared_pair(vt, at + 8));
      }
    }
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 1);
    sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 2);
    if (rows[r] >= p.l) continue;
    const long long row = b * p.l + rows[r];
    // sum == 0 (nothing attended): 0 / 0 is NaN, as the composite's softmax; lse is -inf.
#pragma unroll
    for (int n = 0; n < EV_ / 8; ++n) {
      out[row * EV_ + n * 8 + 2 * t] = x_store((double)(o[n][2 * r] / sum[r]));
      out[row * EV_ + n * 8 + 2 * t + 1] = x_store((double)(o[n][2 * r + 1] / sum[r]));
    }
    if (t == 0) lse[row] = m[r] + logf(sum[r]);
  }
}
)";

/// The #defines of shape and the element type, then the shared helpers.
std::string prelude(const AttentionShape& shape) {
  std::string source = element_type(shape.dtype, "x");
  source += "#define E_ " + std::to_string(shape.e) + "\n";
  source += "#define EV_ " + std::to_string(shape.ev) + "\n";
  source += "#define MASK_KIND " + std::to_string(static_cast<int>(shape.mask)) + "\n";
  source += std::string("#define CAUSAL ") + (shape.causal ? "1" : "0") + "\n";
  source += kCommon;
  return source;
}

/// Element strides of a contiguous tensor of dims, right-aligned to rank dims (0 where a dim is
/// missing or of size 1, so that it broadcasts).
std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& dims, std::size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (std::size_t d = dims.size(); d-- > 0;) {
    if (dims[d] != 1) strides[rank - dims.size() + d] = stride;
    stride *= dims[d];
  }
  return strides;
}

/// Whether batch dims [from, to) (sizes, strides) walk as one flattened index with one stride.
bool merges(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
            std::size_t from, std::size_t to) {
  for (std::size_t d = from; d + 1 < to; ++d) {
    if (strides[d] != strides[d + 1] * sizes[d + 1]) return false;
  }
  return true;
}

/// The mask's two batch strides (ember_attention's mask_* fields); false when no split of the
/// batch dims into two runs that each merge exists.
bool set_mask_strides(AttentionParameters& p, const Shape& q, const Shape& mask) {
  const std::size_t rank = q.rank();
  const std::size_t batch_rank = rank - 2;
  const std::vector<int64_t> strides = broadcast_strides(mask.dims(), rank);
  p.mask_row_stride = strides[rank - 2];
  p.mask_col_stride = strides[rank - 1];
  const std::vector<int64_t> sizes(q.dims().begin(), q.dims().end() - 2);
  for (std::size_t split = 0; split <= batch_rank; ++split) {
    if (!merges(sizes, strides, 0, split) || !merges(sizes, strides, split, batch_rank)) continue;
    p.mask_inner = 1;
    for (std::size_t d = split; d < batch_rank; ++d)
      p.mask_inner *= sizes[d];
    p.mask_outer_stride = split > 0 ? strides[split - 1] : 0;
    p.mask_inner_stride = split < batch_rank ? strides[batch_rank - 1] : 0;
    return p.mask_inner > 0;
  }
  return false;
}

constexpr int64_t kMaxBlocks = 2147483647;

bool head_dim_fits(int64_t dim) {
  return dim > 0 && dim <= kAttentionMaxHeadDim;
}

}  // namespace

std::optional<AttentionShape> attention_shape(const ir::Attention& op,
                                              std::span<const ir::TensorMeta> inputs) {
  const Shape& q = inputs[0].shape;
  const std::size_t rank = q.rank();
  AttentionShape shape{inputs[0].dtype,     1,         q[rank - 1], inputs[2].shape[rank - 1],
                       AttentionMask::None, op.causal, {}};
  if (shape.dtype != DType::F32 && shape.dtype != DType::F16 && shape.dtype != DType::BF16) {
    return std::nullopt;
  }
  if (!head_dim_fits(shape.e) || !head_dim_fits(shape.ev)) return std::nullopt;
  for (std::size_t d = 0; d + 2 < rank; ++d)
    shape.batches *= q[d];
  shape.parameters.l = q[rank - 2];
  shape.parameters.s = inputs[1].shape[rank - 2];
  shape.parameters.scale = op.scale;
  const int64_t longest = std::max(shape.parameters.l, shape.parameters.s);
  // Nothing to compute, or more blocks than a grid's x dimension takes.
  if (shape.batches == 0 || shape.parameters.l == 0 || shape.parameters.s == 0 ||
      shape.batches > kMaxBlocks / ((longest + kAttentionRows - 1) / kAttentionRows)) {
    return std::nullopt;
  }
  if (inputs.size() == 4) {
    shape.mask = inputs[3].dtype == DType::Bool ? AttentionMask::Bool : AttentionMask::Float;
    if (!set_mask_strides(shape.parameters, q, inputs[3].shape)) return std::nullopt;
  }
  return shape;
}

bool uses_tensor_cores(const AttentionShape& shape) {
  return (shape.dtype == DType::F16 || shape.dtype == DType::BF16) && shape.e % 16 == 0 &&
         shape.ev % 8 == 0;
}

AttentionGrid attention_forward_grid(const AttentionShape& shape) {
  return uses_tensor_cores(shape) ? AttentionGrid{128, 64}
                                  : AttentionGrid{kAttentionThreads, kAttentionRows};
}

std::string attention_forward_source(const AttentionShape& shape) {
  if (!uses_tensor_cores(shape)) return prelude(shape) + std::string(kForward);
  const bool f16 = shape.dtype == DType::F16;
  std::string source = prelude(shape);
  source += std::string("#define MMA_TYPE \"") + (f16 ? "f16" : "bf16") + "\"\n";
  source +=
      std::string("#define x_store16 ") + (f16 ? "ember_store_f16" : "ember_store_bf16") + "\n";
  return source + std::string(kForwardMma);
}

std::string attention_backward_source(const AttentionShape& shape) {
  return prelude(shape) + std::string(kBackward);
}

}  // namespace ember::cuda
