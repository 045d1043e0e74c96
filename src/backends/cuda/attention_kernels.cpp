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

// The keys a block of queries [i0, i0 + rows) reads: under CAUSAL none past its last query.
__device__ __forceinline__ long long ember_keys(const ember_attention& p, long long i0,
                                                long long rows) {
#if CAUSAL
  return min(p.s, i0 + rows);
#else
  (void)i0;
  (void)rows;
  return p.s;
#endif
}

#define LOG2E 1.4426950408889634f
#define LN2 0.6931471805599453f

// Whether the scores of queries [i0, i0 + rows) and keys [j0, j0 + cols) need testing (a mask,
// the causal diagonal, or an end inside them); elsewhere each is the product times the scale.
__device__ __forceinline__ bool ember_tested(const ember_attention& p, long long i0, long long rows,
                                             long long j0, long long cols) {
  return MASK_KIND != 0 || (CAUSAL && j0 + cols > i0 + 1) || i0 + rows > p.l || j0 + cols > p.s;
}

// The score of query i and key j from their product, in base 2 (-inf where masked out or past
// an end).
__device__ __forceinline__ float ember_score2(float dot, bool tested, const void* mask,
                                              const ember_attention& p, long long base,
                                              long long i, long long j) {
  if (!tested) return dot * ((float)p.scale * LOG2E);
  return ember_score(dot, mask, p, base, i, j, i < p.l && j < p.s) * LOG2E;
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
  const long long keys = ember_keys(p, at.r0, ROWS);
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

// The f32 forward, and f16's and bf16's where tensor cores do not apply, for head dims up to 64:
// register tiles of a small matrix product. A block of 256 threads takes TQ = 64 query rows
// (kTiledGrid's: 4 per row group of 16 threads) and key tiles of 32; thread (rg, cg) = (tid / 16,
// tid % 16) holds rows 4 rg .. 4 rg + 3: their scores with keys cg and cg + 16, and their output
// columns cg, cg + 16, ... . Q and each K tile lie transposed in shared memory (a step reads a
// float4 of Q and two floats of K for 8 FMAs), the 16 threads of a row group share each row's
// maximum by shuffles, P passes through shared memory transposed, and V as it lies (a step reads a
// float4 of P and a float per output column).
constexpr std::string_view kForwardTiled = R"(
#define TK 32
#define QP (TQ + 4)
#define COLS ((EV_ + 15) / 16)

// The maximum (or sum) over the 16 threads of a row group (consecutive lanes), in every one.
__device__ __forceinline__ float ember_group16_max(float x) {
#pragma unroll
  for (int lanes = 8; lanes > 0; lanes /= 2)
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, lanes));
  return x;
}
__device__ __forceinline__ float ember_group16_sum(float x) {
#pragma unroll
  for (int lanes = 8; lanes > 0; lanes /= 2)
    x += __shfl_xor_sync(0xffffffffu, x, lanes);
  return x;
}

extern "C" __global__ void __launch_bounds__(256)
    ember_attention_forward(const x_t* q, const x_t* k, const x_t* v, const void* mask, x_t* out,
                            float* lse, ember_attention p) {
  alignas(16) __shared__ float qt[E_ * QP];       // qt[e * QP + row]
  __shared__ float kt[E_ * (TK + 1)];               // kt[e * (TK + 1) + key]
  __shared__ float vs[TK * COLS * 16];              // vs[key * COLS * 16 + column], zeros past EV_
  alignas(16) __shared__ float pt[TK * QP];       // pt[key * QP + row]
  const long long tiles = (p.l + TQ - 1) / TQ;
  const long long b = blockIdx.x / tiles;
  const long long r0 = blockIdx.x % tiles * TQ;
  const long long base = ember_mask_base(p, b);
  const int rg = threadIdx.x / 16;
  const int cg = threadIdx.x % 16;
  for (int at = threadIdx.x; at < TQ * E_; at += blockDim.x) {
    const int r = at / E_;
    const int e = at % E_;
    qt[e * QP + r] = r0 + r < p.l ? x_load(q[(b * p.l + r0 + r) * E_ + e]) : 0.0f;
  }
  float o[4][COLS];
  float m[4];  // the rows' running maximum, base 2
  float sum[4];  // their sums over this thread's keys
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    m[i] = NEG_INF;
    sum[i] = 0.0f;
#pragma unroll
    for (int c = 0; c < COLS; ++c)
      o[i][c] = 0.0f;
  }
  const long long keys = ember_keys(p, r0, TQ);
  for (long long j0 = 0; j0 < keys; j0 += TK) {
    for (int at = threadIdx.x; at < TK * E_; at += blockDim.x) {
      const int j = at / E_;
      const int e = at % E_;
      kt[e * (TK + 1) + j] = j0 + j < p.s ? x_load(k[(b * p.s + j0 + j) * E_ + e]) : 0.0f;
    }
    for (int at = threadIdx.x; at < TK * COLS * 16; at += blockDim.x) {
      const int j = at / (COLS * 16);
      const int c = at % (COLS * 16);
      vs[at] = j0 + j < p.s && c < EV_ ? x_load(v[(b * p.s + j0 + j) * EV_ + c]) : 0.0f;
    }
    __syncthreads();
    float s[4][2] = {};
#pragma unroll 8
    for (int e = 0; e < E_; ++e) {
      const float4 qv = *(const float4*)&qt[e * QP + 4 * rg];
      const float k0 = kt[e * (TK + 1) + cg];
      const float k1 = kt[e * (TK + 1) + cg + 16];
      const float qs[4] = {qv.x, qv.y, qv.z, qv.w};
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        s[i][0] = fmaf(qs[i], k0, s[i][0]);
        s[i][1] = fmaf(qs[i], k1, s[i][1]);
      }
    }
    const bool tested = ember_tested(p, r0, TQ, j0, TK);
    float weights[2][4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const long long row = r0 + 4 * rg + i;
#pragma unroll
      for (int c = 0; c < 2; ++c)
        s[i][c] = ember_score2(s[i][c], tested, mask, p, base, row, j0 + cg + 16 * c);
      const float m_new = fmaxf(m[i], ember_group16_max(fmaxf(s[i][0], s[i][1])));
      // Nothing to attend yet: exponents from 0 keep every weight 0 instead of NaN.
      const float shift = m_new == NEG_INF ? 0.0f : m_new;
      const float rescale = exp2f(m[i] - shift);
      m[i] = m_new;
#pragma unroll
      for (int c = 0; c < 2; ++c)
        weights[c][i] = exp2f(s[i][c] - shift);
      sum[i] = sum[i] * rescale + weights[0][i] + weights[1][i];
#pragma unroll
      for (int c = 0; c < COLS; ++c)
        o[i][c] *= rescale;
    }
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      *(float4*)&pt[(cg + 16 * c) * QP + 4 * rg] =
          make_float4(weights[c][0], weights[c][1], weights[c][2], weights[c][3]);
    }
    __syncthreads();
#pragma unroll 4
    for (int j = 0; j < TK; ++j) {
      const float4 pv = *(const float4*)&pt[j * QP + 4 * rg];
      const float ps[4] = {pv.x, pv.y, pv.z, pv.w};
#pragma unroll
      for (int c = 0; c < COLS; ++c) {
        const float x = vs[j * COLS * 16 + cg + 16 * c];
#pragma unroll
        for (int i = 0; i < 4; ++i)
          o[i][c] = fmaf(ps[i], x, o[i][c]);
      }
    }
    __syncthreads();  // every thread is done with this tile before the next one's loads
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float total = ember_group16_sum(sum[i]);
    const long long row = r0 + 4 * rg + i;
    if (row >= p.l) continue;
    // total == 0 (nothing attended): 0 * inf is NaN, as the composite's softmax; lse is -inf.
#pragma unroll
    for (int c = 0; c < COLS; ++c) {
      const int column = cg + 16 * c;
      if (column < EV_) out[(b * p.l + row) * EV_ + column] = x_store((double)(o[i][c] / total));
    }
    if (cg == 0) lse[b * p.l + row] = (m[i] + log2f(total)) * LN2;
  }
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
  const long long keys = ember_keys(p, at.r0, ROWS);
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

// What the tensor-core kernels share (f16, bf16): mma.sync.m16n8k16 with f32 accumulation in
// FlashAttention-2's register layout. A warp takes 16 rows (queries, or keys) of a block's MROWS
// (mma_prelude's); a thread (g = lane / 4, t = lane % 4) holds rows g and g + 8: its A fragments
// of those rows stay in registers, and an accumulator tile of 8 columns gives it columns 2t and
// 2t + 1 of both rows. The other side passes through shared memory a tile of rows at a time, as
// the rows lie (padded by 8 elements, so that the 8 rows an ldmatrix phase reads fall in distinct
// banks), double-buffered: cp.async copies the next tile while the block computes on this one
// (ember_pipeline). B fragments come through ldmatrix: as the rows lie for a product with X^T,
// transposed for one with X. An accumulator tile of scores, rounded to the dtype, is the A operand
// of the next product as it lies. Scores are kept in base 2 (log2(e) folded into the scale: one
// ex2 an element); only tiles that hold a mask, the causal diagonal or an end test each score.
constexpr std::string_view kMmaCommon = R"(
#define KP (E_ + 8)
#define VP (EV_ + 8)

__device__ __forceinline__ void ember_mma(float (&c)[4], const unsigned (&a)[4], unsigned b0,
                                          unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." MMA_TYPE "." MMA_TYPE ".f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// lo and hi rounded to the dtype (to nearest even), lo in the low half (the lower column of a
// fragment pair): one conversion instruction for both.
__device__ __forceinline__ unsigned ember_pack(float lo, float hi) {
  unsigned packed;
  asm("cvt.rn." MMA_TYPE "x2.f32 %0, %1, %2;\n" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

// 2^x by the special-function unit (ex2.approx, results below 2^-126 flushed to 0): the
// probabilities' exponentials, in (0, 1] (0 for -inf) where the rows' maximum is subtracted.
__device__ __forceinline__ float ember_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

template <int N>
__device__ __forceinline__ void ember_clear(float (&acc)[N][4]) {
#pragma unroll
  for (int n = 0; n < N; ++n)
    acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
}

// The A fragments of rows `row` and row + 8 of x [n, WIDTH] (zeros past n): elements 2t, 2t + 1
// (and + 8) of each 16 columns.
template <int WIDTH>
__device__ __forceinline__ void ember_fragments(unsigned (&a)[WIDTH / 16][4], const x_t* x,
                                                long long row, long long n, int t) {
#pragma unroll
  for (int kk = 0; kk < WIDTH / 16; ++kk) {
#pragma unroll
    for (int f = 0; f < 4; ++f) {
      const long long r = row + (f % 2) * 8;
      const int c = kk * 16 + 2 * t + (f / 2) * 8;
      a[kk][f] = r < n ? *(const unsigned*)(x + r * WIDTH + c) : 0u;
    }
  }
}

__device__ __forceinline__ unsigned ember_shared_address(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

// Rows [r0, r0 + TILE) of x [n, WIDTH] from row `first` into tile (rows of WIDTH + 8 elements),
// 16 bytes a copy (cp.async, not committed); zeros past n.
template <int WIDTH, int TILE>
__device__ __forceinline__ void ember_copy_rows(x_t* tile, const x_t* x, long long first,
                                                long long r0, long long n) {
  constexpr int CHUNKS = WIDTH / 8;
  for (int at = threadIdx.x; at < TILE * CHUNKS; at += blockDim.x) {
    const int j = at / CHUNKS;
    const int c = at % CHUNKS * 8;
    x_t* to = tile + j * (WIDTH + 8) + c;
    if (r0 + j < n) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(ember_shared_address(to)),
                   "l"(x + (first + r0 + j) * WIDTH + c)
                   : "memory");
    } else {
      *(uint4*)to = make_uint4(0u, 0u, 0u, 0u);
    }
  }
}

// Elements [r0, r0 + TILE) of the f32 vector x [n] from `first` into tile, 4 bytes a copy
// (cp.async, not committed); zeros past n.
template <int TILE>
__device__ __forceinline__ void ember_copy_floats(float* tile, const float* x, long long first,
                                                  long long r0, long long n) {
  for (int j = threadIdx.x; j < TILE; j += blockDim.x) {
    if (r0 + j < n) {
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(
                       ember_shared_address(tile + j)),
                   "l"(x + first + r0 + j)
                   : "memory");
    } else {
      tile[j] = 0.0f;
    }
  }
}

__device__ __forceinline__ void ember_commit_copies() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most N groups of this thread's copies are in flight.
template <int N>
__device__ __forceinline__ void ember_copies_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Tiles [start, end) of TILE rows: stage(r0, buffer) issues (and commits) the copies of tile r0
// into a buffer (0 or 1), compute(r0, buffer) runs once every thread's copies of it have landed.
// Tile r0 + TILE's copies fly while tile r0 is computed on; the block leaves a buffer before it
// is refilled.
template <int TILE, typename Stage, typename Compute>
__device__ __forceinline__ void ember_pipeline(long long start, long long end, Stage stage,
                                               Compute compute) {
  stage(start, 0);
  for (long long r0 = start; r0 < end; r0 += TILE) {
    const int buffer = (int)((r0 - start) / TILE % 2);
    if (r0 + TILE < end) {
      stage(r0 + TILE, 1 - buffer);
      ember_copies_wait<1>();
    } else {
      ember_copies_wait<0>();
    }
    __syncthreads();
    compute(r0, buffer);
    __syncthreads();
  }
}

// Four 8x8 matrices of shared memory: lane l gives the address of row l % 8 of matrix l / 8 and
// receives elements 2t, 2t + 1 of row g of each (of column g with TRANSPOSED).
template <bool TRANSPOSED>
__device__ __forceinline__ void ember_ldmatrix(unsigned (&r)[4], const x_t* row) {
  if (TRANSPOSED) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(ember_shared_address(row)));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(ember_shared_address(row)));
  }
}

// acc[n] += a X_n for the accumulator tiles n (8 columns each), K_STEPS steps of 16 terms.
// BY_COLUMNS false: X_n is the transpose of tile rows 8n .. 8n + 7 (a product by the tile's rows,
// as q kᵀ); true: tile columns 8n .. 8n + 7 (by its columns, as P v), through a transposing
// ldmatrix. Tile rows hold PITCH elements; one ldmatrix gives tiles n and n + 1 a step.
template <bool BY_COLUMNS, int N, int K_STEPS, int PITCH>
__device__ __forceinline__ void ember_product(float (&acc)[N][4], const unsigned (&a)[K_STEPS][4],
                                              const x_t* tile, int lane) {
  const int m = lane / 8;
#pragma unroll
  for (int n = 0; n < N; n += 2) {
#pragma unroll
    for (int kk = 0; kk < K_STEPS; ++kk) {
      const int outer = 8 * (n + m / 2);       // the tile's first of the 8 columns of acc[n]
      const int inner = 16 * kk + 8 * (m % 2);  // the first of its 8 terms
      const int at = BY_COLUMNS ? (inner + lane % 8) * PITCH + outer
                                : (outer + lane % 8) * PITCH + inner;
      unsigned b[4];
      ember_ldmatrix<BY_COLUMNS>(b, tile + at);
      ember_mma(acc[n], a[kk], b[0], b[1]);
      ember_mma(acc[n + 1], a[kk], b[2], b[3]);
    }
  }
}

// The accumulator tiles of a 16 x 16N product as A fragments (rounded to the dtype).
template <int N>
__device__ __forceinline__ void ember_as_fragments(unsigned (&a)[N][4],
                                                   const float (&acc)[2 * N][4]) {
#pragma unroll
  for (int kk = 0; kk < N; ++kk) {
#pragma unroll
    for (int f = 0; f < 4; ++f) {
      const float(&c)[4] = acc[2 * kk + f / 2];
      a[kk][f] = ember_pack(c[(f % 2) * 2], c[(f % 2) * 2 + 1]);
    }
  }
}

// Row row + 8 r of the accumulator tiles (columns 2t, 2t + 1 of each 8), times factor, into row
// `at` of x [.., WIDTH].
template <int WIDTH>
__device__ __forceinline__ void ember_store_row(x_t* x, long long at, const float (&acc)[WIDTH / 8][4],
                                                int r, float factor, int t) {
#pragma unroll
  for (int n = 0; n < WIDTH / 8; ++n) {
#pragma unroll
    for (int c = 0; c < 2; ++c)
      x[at * WIDTH + n * 8 + 2 * t + c] = x_store((double)(acc[n][2 * r + c] * factor));
  }
}

// The rows' maximum and sum (or any value) over the 4 threads of a quad, which hold a row.
__device__ __forceinline__ float ember_quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float ember_quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// Where a warp's thread stands in a block of MROWS rows of n: batch entry b, the block's first row
// r0, the thread's rows row (and row + 8), its lane, g and t.
struct ember_warp {
  long long b, r0, row, base;
  int lane, g, t;
};

__device__ __forceinline__ ember_warp ember_warp_of(const ember_attention& p, long long n) {
  const long long tiles = (n + MROWS - 1) / MROWS;
  ember_warp at;
  at.b = blockIdx.x / tiles;
  at.r0 = (blockIdx.x % tiles) * MROWS;
  at.lane = threadIdx.x % 32;
  at.g = at.lane / 4;
  at.t = at.lane % 4;
  at.row = at.r0 + threadIdx.x / 32 * 16 + at.g;
  at.base = ember_mask_base(p, at.b);
  return at;
}

)";

// The forward: a block of 8 warps takes 128 query rows, K and V tiles of FKEYS keys. S = Q K^T,
// the online softmax per row across its quad, O += P V with P rounded to the dtype.
constexpr std::string_view kForwardMma = R"(
#define FKEYS (E_ > 64 || EV_ > 64 ? 32 : 64)

extern "C" __global__ void __launch_bounds__(256, E_ > 64 || EV_ > 64 ? 1 : 2)
    ember_attention_forward(const x_t* q, const x_t* k, const x_t* v, const void* mask, x_t* out,
                            float* lse, ember_attention p) {
  alignas(16) __shared__ x_t ks[2][FKEYS * KP];
  alignas(16) __shared__ x_t vs[2][FKEYS * VP];
  const ember_warp at = ember_warp_of(p, p.l);
  unsigned qa[E_ / 16][4];
  ember_fragments<E_>(qa, q + at.b * p.l * E_, at.row, p.l, at.t);
  float o[EV_ / 8][4];
  ember_clear(o);
  // The rows' running maximum (base 2) and their sums over this thread's columns.
  float m[2] = {NEG_INF, NEG_INF};
  float sum[2] = {0.0f, 0.0f};
  const long long first = at.b * p.s;
  const auto stage = [&](long long j0, int buffer) {
    ember_copy_rows<E_, FKEYS>(ks[buffer], k, first, j0, p.s);
    ember_copy_rows<EV_, FKEYS>(vs[buffer], v, first, j0, p.s);
    ember_commit_copies();
  };
  const auto compute = [&](long long j0, int buffer) {
    float s[FKEYS / 8][4];
    ember_clear(s);
    ember_product<false, FKEYS / 8, E_ / 16, KP>(s, qa, ks[buffer], at.lane);
    const bool tested = ember_tested(p, at.r0, MROWS, j0, FKEYS);
    float shift[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float tile_max = NEG_INF;
#pragma unroll
      for (int n = 0; n < FKEYS / 8; ++n) {
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          float& x = s[n][2 * r + c];
          x = ember_score2(x, tested, mask, p, at.base, at.row + 8 * r, j0 + n * 8 + 2 * at.t + c);
          tile_max = fmaxf(tile_max, x);
        }
      }
      const float m_new = fmaxf(m[r], ember_quad_max(tile_max));
      // Nothing to attend yet: exponents from 0 keep every weight 0 instead of NaN.
      shift[r] = m_new == NEG_INF ? 0.0f : m_new;
      const float rescale = ember_exp2(m[r] - shift[r]);
      sum[r] *= rescale;
#pragma unroll
      for (int n = 0; n < EV_ / 8; ++n) {
        o[n][2 * r] *= rescale;
        o[n][2 * r + 1] *= rescale;
      }
      m[r] = m_new;
    }
#pragma unroll
    for (int n = 0; n < FKEYS / 8; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        s[n][e] = ember_exp2(s[n][e] - shift[e / 2]);
        sum[e / 2] += s[n][e];
      }
    }
    unsigned pa[FKEYS / 16][4];
    ember_as_fragments(pa, s);
    ember_product<true, EV_ / 8, FKEYS / 16, VP>(o, pa, vs[buffer], at.lane);
  };
  ember_pipeline<FKEYS>(0, ember_keys(p, at.r0, MROWS), stage, compute);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float total = ember_quad_sum(sum[r]);
    if (at.row + 8 * r >= p.l) continue;
    const long long row = at.b * p.l + at.row + 8 * r;
    // total == 0 (nothing attended): 0 * inf is NaN, as the composite's softmax; lse is -inf.
    ember_store_row<EV_>(out, row, o, r, 1.0f / total, at.t);
    if (at.t == 0) lse[row] = (m[r] + log2f(total)) * LN2;
  }
}
)";

// The backward (E and Ev up to 64: what its registers hold), blocks of 4 warps, tiles of 32 rows.
// ember_attention_dq: a block takes 64 query rows; per key tile S = Q K^T and dP = dO V^T in
// accumulators, dS = P (dP - D) with P = exp(S - lse), dQ += dS K. It writes D = rowsum(dO out)
// first.
// ember_attention_dkdv: a block takes 64 keys; per query tile (with its rows' lse and D) S^T = K
// Q^T and dP^T = V dO^T, dV += P^T dO and dK += dS^T Q.
constexpr std::string_view kBackwardMma = R"(
#define BKEYS 32

extern "C" __global__ void __launch_bounds__(128)
    ember_attention_dq(const x_t* q, const x_t* k, const x_t* v, const void* mask, const x_t* out,
                       const float* lse, const x_t* grad, x_t* dq, float* delta,
                       ember_attention p) {
  alignas(16) __shared__ x_t ks[2][BKEYS * KP];
  alignas(16) __shared__ x_t vs[2][BKEYS * VP];
  const ember_warp at = ember_warp_of(p, p.l);
  unsigned qa[E_ / 16][4];
  ember_fragments<E_>(qa, q + at.b * p.l * E_, at.row, p.l, at.t);
  unsigned ga[EV_ / 16][4];
  ember_fragments<EV_>(ga, grad + at.b * p.l * EV_, at.row, p.l, at.t);
  float lse2[2];  // base 2
  float d[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const long long i = at.row + 8 * r;
    const long long row = at.b * p.l + i;
    float part = 0.0f;
    if (i < p.l) {
      for (int c = 2 * at.t; c < EV_; c += 8) {
        part = fmaf(x_load(grad[row * EV_ + c]), x_load(out[row * EV_ + c]), part);
        part = fmaf(x_load(grad[row * EV_ + c + 1]), x_load(out[row * EV_ + c + 1]), part);
      }
    }
    d[r] = ember_quad_sum(part);
    lse2[r] = i < p.l ? lse[row] * LOG2E : 0.0f;
    if (i < p.l && at.t == 0) delta[row] = d[r];
  }
  float acc[E_ / 8][4];
  ember_clear(acc);
  const long long first = at.b * p.s;
  const auto stage = [&](long long j0, int buffer) {
    ember_copy_rows<E_, BKEYS>(ks[buffer], k, first, j0, p.s);
    ember_copy_rows<EV_, BKEYS>(vs[buffer], v, first, j0, p.s);
    ember_commit_copies();
  };
  const auto compute = [&](long long j0, int buffer) {
    float s[BKEYS / 8][4];
    ember_clear(s);
    ember_product<false, BKEYS / 8, E_ / 16, KP>(s, qa, ks[buffer], at.lane);
    float dp[BKEYS / 8][4];
    ember_clear(dp);
    ember_product<false, BKEYS / 8, EV_ / 16, VP>(dp, ga, vs[buffer], at.lane);
    const bool tested = ember_tested(p, at.r0, MROWS, j0, BKEYS);
#pragma unroll
    for (int n = 0; n < BKEYS / 8; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const long long i = at.row + 8 * (e / 2);
        const long long j = j0 + n * 8 + 2 * at.t + e % 2;
        const float score = ember_score2(s[n][e], tested, mask, p, at.base, i, j);
        s[n][e] = ember_exp2(score - lse2[e / 2]) * (dp[n][e] - d[e / 2]);
      }
    }
    unsigned da[BKEYS / 16][4];
    ember_as_fragments(da, s);
    ember_product<true, E_ / 8, BKEYS / 16, KP>(acc, da, ks[buffer], at.lane);
  };
  ember_pipeline<BKEYS>(0, ember_keys(p, at.r0, MROWS), stage, compute);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    if (at.row + 8 * r >= p.l) continue;
    const long long row = at.b * p.l + at.row + 8 * r;
    ember_store_row<E_>(dq, row, acc, r, (float)p.scale, at.t);
  }
}

extern "C" __global__ void __launch_bounds__(128)
    ember_attention_dkdv(const x_t* q, const x_t* k, const x_t* v, const void* mask,
                         const float* lse, const x_t* grad, const float* delta, x_t* dk, x_t* dv,
                         ember_attention p) {
  alignas(16) __shared__ x_t qs[2][BKEYS * KP];
  alignas(16) __shared__ x_t gs[2][BKEYS * VP];
  __shared__ float lses[2][BKEYS];
  __shared__ float deltas[2][BKEYS];
  const ember_warp at = ember_warp_of(p, p.s);
  unsigned ka[E_ / 16][4];
  ember_fragments<E_>(ka, k + at.b * p.s * E_, at.row, p.s, at.t);
  unsigned va[EV_ / 16][4];
  ember_fragments<EV_>(va, v + at.b * p.s * EV_, at.row, p.s, at.t);
  float dka[E_ / 8][4];
  ember_clear(dka);
  float dva[EV_ / 8][4];
  ember_clear(dva);
  const long long first = at.b * p.l;
  const auto stage = [&](long long i0, int buffer) {
    ember_copy_rows<E_, BKEYS>(qs[buffer], q, first, i0, p.l);
    ember_copy_rows<EV_, BKEYS>(gs[buffer], grad, first, i0, p.l);
    // A query past the end weighs exp2(-inf - 0) = 0.
    ember_copy_floats<BKEYS>(lses[buffer], lse, first, i0, p.l);
    ember_copy_floats<BKEYS>(deltas[buffer], delta, first, i0, p.l);
    ember_commit_copies();
  };
  const auto compute = [&](long long i0, int buffer) {
    float s[BKEYS / 8][4];
    ember_clear(s);
    ember_product<false, BKEYS / 8, E_ / 16, KP>(s, ka, qs[buffer], at.lane);
    float dp[BKEYS / 8][4];
    ember_clear(dp);
    ember_product<false, BKEYS / 8, EV_ / 16, VP>(dp, va, gs[buffer], at.lane);
    const bool tested = ember_tested(p, i0, BKEYS, at.r0, MROWS);
    float ds[BKEYS / 8][4];
#pragma unroll
    for (int n = 0; n < BKEYS / 8; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const long long j = at.row + 8 * (e / 2);
        const int ii = n * 8 + 2 * at.t + e % 2;
        const float score = ember_score2(s[n][e], tested, mask, p, at.base, i0 + ii, j);
        s[n][e] = ember_exp2(score - lses[buffer][ii] * LOG2E);
        ds[n][e] = s[n][e] * (dp[n][e] - deltas[buffer][ii]);
      }
    }
    unsigned pa[BKEYS / 16][4];
    ember_as_fragments(pa, s);
    ember_product<true, EV_ / 8, BKEYS / 16, VP>(dva, pa, gs[buffer], at.lane);
    ember_as_fragments(pa, ds);
    ember_product<true, E_ / 8, BKEYS / 16, KP>(dka, pa, qs[buffer], at.lane);
  };
  // Under CAUSAL, queries before the block's first key attend none of its keys.
  ember_pipeline<BKEYS>(CAUSAL ? at.r0 : 0, p.l, stage, compute);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    if (at.row + 8 * r >= p.s) continue;
    const long long key = at.b * p.s + at.row + 8 * r;
    ember_store_row<E_>(dk, key, dka, r, (float)p.scale, at.t);
    ember_store_row<EV_>(dv, key, dva, r, 1.0f, at.t);
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

/// prelude, then the tensor-core kernels' helpers for the dtype's mma.sync and blocks of grid.
std::string mma_prelude(const AttentionShape& shape, AttentionGrid grid) {
  const bool f16 = shape.dtype == DType::F16;
  std::string source = prelude(shape);
  source += "#define MROWS " + std::to_string(grid.rows) + "\n";
  source += std::string("#define MMA_TYPE \"") + (f16 ? "f16" : "bf16") + "\"\n";
  return source + std::string(kMmaCommon);
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
/// The tensor-core backward holds K and V (or Q and dO) fragments and both gradients in registers:
/// head dims up to 64.
constexpr int64_t kMmaBackwardMaxHeadDim = 64;
constexpr AttentionGrid kScalarGrid{kAttentionThreads, kAttentionRows};
/// Warps of 16 rows: 8 for the forward, 4 for the backward (whose kernels hold more registers).
constexpr AttentionGrid kMmaForwardGrid{256, 128};
constexpr AttentionGrid kMmaBackwardGrid{128, 64};
/// The register-tiled forward: 256 threads per 64 query rows, head dims up to 64.
constexpr AttentionGrid kTiledGrid{256, 64};
constexpr int64_t kTiledMaxHeadDim = 64;

bool uses_tiled_forward(const AttentionShape& shape) {
  return !uses_tensor_cores(shape) && shape.e <= kTiledMaxHeadDim && shape.ev <= kTiledMaxHeadDim;
}

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
         shape.ev % 16 == 0;
}

bool backward_uses_tensor_cores(const AttentionShape& shape) {
  return uses_tensor_cores(shape) && shape.e <= kMmaBackwardMaxHeadDim &&
         shape.ev <= kMmaBackwardMaxHeadDim;
}

AttentionGrid attention_forward_grid(const AttentionShape& shape) {
  if (uses_tensor_cores(shape)) return kMmaForwardGrid;
  return uses_tiled_forward(shape) ? kTiledGrid : kScalarGrid;
}

AttentionGrid attention_backward_grid(const AttentionShape& shape) {
  return backward_uses_tensor_cores(shape) ? kMmaBackwardGrid : kScalarGrid;
}

std::string attention_forward_source(const AttentionShape& shape) {
  if (uses_tiled_forward(shape)) {
    return prelude(shape) + "#define TQ " + std::to_string(kTiledGrid.rows) + "\n" +
           std::string(kForwardTiled);
  }
  if (!uses_tensor_cores(shape)) return prelude(shape) + std::string(kForward);
  return mma_prelude(shape, kMmaForwardGrid) + std::string(kForwardMma);
}

std::string attention_backward_source(const AttentionShape& shape) {
  if (!backward_uses_tensor_cores(shape)) return prelude(shape) + std::string(kBackward);
  return mma_prelude(shape, kMmaBackwardGrid) + std::string(kBackwardMma);
}

}  // namespace ember::cuda
