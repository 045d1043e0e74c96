#include "backends/cuda/kernel_sources.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "codegen/cuda_c.h"
#include "codegen/cuda_ops.h"
#include "codegen/cuda_program.h"
#include "ember/error.h"
#include "ir/random.h"

namespace ember::cuda {
namespace {

using ir::ReduceOp;

// A double rounded to float "to odd" (ember::detail::round_to_odd_float): rounding that float to
// f16 or bf16 then rounds the double correctly, as ember's conversions do.
constexpr std::string_view kRoundToOdd = R"(#ifndef EMBER_ROUND_TO_ODD
#define EMBER_ROUND_TO_ODD
__device__ __forceinline__ float ember_round_to_odd(double v) {
  const float nearest = (float)v;
  if (!isfinite(nearest) || (double)nearest == v) return nearest;
  return __uint_as_float(__float_as_uint(__double2float_rz(v)) | 1u);
}
#endif
)";

}  // namespace

std::string element_type(DType dtype, std::string_view prefix) {
  const std::string p(prefix);
  std::string source(codegen::cuda::storage_helpers(dtype));
  source += kRoundToOdd;
  const std::string storage(codegen::cuda::storage_type(dtype));
  source += "typedef " + storage + " " + p + "_t;\n";
  switch (dtype) {
    case DType::F64:
    case DType::F32:
      source += "__device__ __forceinline__ " + storage + " " + p + "_load(" + storage +
                " v) { return v; }\n";
      source += "__device__ __forceinline__ " + storage + " " + p + "_store(double v) { return (" +
                storage + ")v; }\n";
      return source;
    case DType::F16:
    case DType::BF16: {
      const std::string suffix = dtype == DType::F16 ? "f16" : "bf16";
      source += "__device__ __forceinline__ float " + p +
                "_load(unsigned short v) { return ember_load_" + suffix + "(v); }\n";
      source += "__device__ __forceinline__ unsigned short " + p +
                "_store(double v) { return ember_store_" + suffix + "(ember_round_to_odd(v)); }\n";
      return source;
    }
    default:
      break;
  }
  throw InvalidArgument("[cuda] no float kernel for dtype " + std::string(dtype_name(dtype)));
}

namespace {

std::string_view element_of_size(std::size_t size) {
  switch (size) {
    case 1:
      return "unsigned char";
    case 2:
      return "unsigned short";
    case 4:
      return "unsigned int";
    case 8:
      return "unsigned long long";
    default:
      break;
  }
  throw InvalidArgument("[cuda] no copy kernel for elements of " + std::to_string(size) + " bytes");
}

/// The grid-stride loop over [0, n) every elementwise kernel runs.
constexpr std::string_view kGridStride =
    "for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; "
    "i += (long long)gridDim.x * blockDim.x)";

/// A reduction's State and its functions, as CUDA C: State, identity(), element(v, k),
/// combine(a, b) (a and b cover disjoint index sets) and finish(s, n, correction) -> the Out value
/// (a value of the accumulator types reduce_element defines, an index or a 0/1). The same text
/// for every dtype: the accumulator types carry the dtype's arithmetic.
std::string reduction_state(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod: {
      const bool product = op == ReduceOp::Prod;
      const std::string finish = op == ReduceOp::Mean
                                     ? "ember_value_t finish(State s, long long n, "
                                       "long long) { return ember_mean(s.v, n); }"
                                     : "ember_sum_t finish(State s, long long, "
                                       "long long) { return s.v; }";
      return std::string("struct State { ember_sum_t v; };\n") +
             "__device__ State identity() { return {(ember_sum_t)" + (product ? "1" : "0") +
             "}; }\n" + "__device__ State element(ember_sum_t v, long long) { return {v}; }\n" +
             "__device__ State combine(State a, State b) { return {a.v " + (product ? "*" : "+") +
             " b.v}; }\n" + "__device__ " + finish + "\n" +
             "__device__ State shuffle(State s, int o) { return {__shfl_xor_sync(0xffffffffu, s.v, "
             "o)}; }\n";
    }
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin: {
      const bool maximum = op == ReduceOp::Max || op == ReduceOp::ArgMax;
      const bool arg = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
      // The first extreme wins; a NaN is the extreme of all (PyTorch): the first NaN wins.
      return std::string("struct State { ember_value_t v; long long i; };\n") +
             "#define EMBER_NONE 0x7fffffffffffffffLL\n"
             "__device__ State identity() { return {(ember_value_t)0, EMBER_NONE}; }\n"
             "__device__ State element(ember_value_t v, long long k) { return {v, k}; }\n"
             "__device__ State combine(State a, State b) {\n"
             "  if (a.i == EMBER_NONE) return b;\n"
             "  if (b.i == EMBER_NONE) return a;\n"
             "  const bool an = ember_isnan(a.v), bn = ember_isnan(b.v);\n"
             "  if (an || bn) return (an && bn) ? (a.i < b.i ? a : b) : (an ? a : b);\n"
             "  if (a.v == b.v) return a.i < b.i ? a : b;\n"
             "  return (a.v " +
             (maximum ? ">" : "<") +
             " b.v) ? a : b;\n"
             "}\n"
             "__device__ " +
             (arg ? "long long" : "ember_value_t") +
             " finish(State s, long long, long long) { return s." + (arg ? "i" : "v") +
             "; }\n"
             "__device__ State shuffle(State s, int o) {\n"
             "  return {__shfl_xor_sync(0xffffffffu, s.v, o), __shfl_xor_sync(0xffffffffu, s.i, "
             "o)};\n"
             "}\n";
    }
    case ReduceOp::Var:
      // Welford's running mean and sum of squared deviations, combined by Chan's rule.
      return "struct State { double n, mean, m2; };\n"
             "__device__ State identity() { return {0.0, 0.0, 0.0}; }\n"
             "__device__ State element(double v, long long) { return {1.0, v, 0.0}; }\n"
             "__device__ State combine(State a, State b) {\n"
             "  if (a.n == 0.0) return b;\n"
             "  if (b.n == 0.0) return a;\n"
             "  const double n = a.n + b.n, delta = b.mean - a.mean;\n"
             "  return {n, a.mean + delta * (b.n / n), a.m2 + b.m2 + delta * delta * (a.n * b.n / "
             "n)};\n"
             "}\n"
             "__device__ double finish(State s, long long n, long long correction) {\n"
             "  return n - correction <= 0 ? __longlong_as_double(0x7ff8000000000000LL)\n"
             "                             : s.m2 / (double)(n - correction);\n"
             "}\n"
             "__device__ State shuffle(State s, int o) {\n"
             "  return {__shfl_xor_sync(0xffffffffu, s.n, o), __shfl_xor_sync(0xffffffffu, s.mean, "
             "o),\n"
             "          __shfl_xor_sync(0xffffffffu, s.m2, o)};\n"
             "}\n";
    case ReduceOp::Any:
    case ReduceOp::All: {
      const bool any = op == ReduceOp::Any;
      return std::string("struct State { int v; };\n") + "__device__ State identity() { return {" +
             (any ? "0" : "1") +
             "}; }\n"
             "__device__ State element(ember_value_t v, long long) { return {v != 0 ? 1 : 0}; }\n"
             "__device__ State combine(State a, State b) { return {a.v " +
             (any ? "|" : "&") +
             " b.v}; }\n"
             "__device__ int finish(State s, long long, long long) { return s.v; }\n"
             "__device__ State shuffle(State s, int o) { return {__shfl_xor_sync(0xffffffffu, s.v, "
             "o)}; }\n";
    }
  }
  throw InvalidArgument("[cuda] unknown reduction");
}

/// How a finished value becomes an element of the output.
std::string store_out(ReduceOp op) {
  switch (op) {
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return "(Out)";
    case ReduceOp::Any:
    case ReduceOp::All:
      return "(unsigned char)";
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod:
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::Var:
      return "x_store";
  }
  throw InvalidArgument("[cuda] unknown reduction");
}

std::string out_type(ReduceOp op, DType dtype, DType index_dtype) {
  switch (op) {
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return integer_type(index_dtype);
    case ReduceOp::Any:
    case ReduceOp::All:
      return "unsigned char";
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod:
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::Var:
      return std::string(codegen::cuda::storage_type(dtype));
  }
  throw InvalidArgument("[cuda] unknown reduction");
}

// The block-wide combination of the row kernels: a tree over shared memory.
constexpr std::string_view kBlockCombine = R"(
__device__ State block_combine(State s) {
  __shared__ State states[EMBER_THREADS];
  states[threadIdx.x] = s;
  __syncthreads();
  for (unsigned half = EMBER_THREADS / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) states[threadIdx.x] = combine(states[threadIdx.x], states[threadIdx.x + half]);
    __syncthreads();
  }
  return states[0];
}
)";

constexpr std::string_view kReduceKernels = R"(
extern "C" __global__ void ember_reduce_rows(const x_t* x, Out* out, State* partial, long long rows,
                                             long long n, long long chunks, long long chunk,
                                             long long correction) {
  const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
  const long long begin = c * chunk, end = min(n, begin + chunk);
  const x_t* lane = x + row * n;
  State s = identity();
  for (long long k = begin + threadIdx.x; k < end; k += blockDim.x)
    s = combine(s, element(x_load(lane[k]), k));
  s = block_combine(s);
  if (threadIdx.x != 0) return;
  if (chunks == 1) out[row] = EMBER_STORE(finish(s, n, correction));
  else partial[blockIdx.x] = s;
}

// A warp a row: short rows (the many rows of a reduction along the last dim) need no block-wide
// synchronization.
extern "C" __global__ void ember_reduce_warp_rows(const x_t* x, Out* out, long long rows,
                                                  long long n, long long correction) {
  const long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;  // the whole warp: row is the same for its lanes
  const x_t* lane = x + row * n;
  State s = identity();
  for (long long k = threadIdx.x % 32; k < n; k += 32) s = combine(s, element(x_load(lane[k]), k));
  for (int offset = 16; offset > 0; offset /= 2) s = combine(s, shuffle(s, offset));
  if (threadIdx.x % 32 == 0) out[row] = EMBER_STORE(finish(s, n, correction));
}

extern "C" __global__ void ember_reduce_partials(const State* partial, Out* out, long long rows,
                                                 long long chunks, long long n,
                                                 long long correction) {
  State s = identity();
  for (long long c = threadIdx.x; c < chunks; c += blockDim.x)
    s = combine(s, partial[blockIdx.x * chunks + c]);
  s = block_combine(s);
  if (threadIdx.x == 0) out[blockIdx.x] = EMBER_STORE(finish(s, n, correction));
}

extern "C" __global__ void ember_reduce_columns(const x_t* x, Out* out, State* partial,
                                                long long rows, long long n, long long inner,
                                                long long chunks, long long chunk,
                                                long long correction) {
  const long long count = rows * chunks * inner;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x) {
    const long long j = i % inner, rc = i / inner, c = rc % chunks, row = rc / chunks;
    const long long begin = c * chunk, end = min(n, begin + chunk);
    const x_t* lane = x + row * n * inner + j;
    State s = identity();
    for (long long k = begin; k < end; ++k) s = combine(s, element(x_load(lane[k * inner]), k));
    if (chunks == 1) out[row * inner + j] = EMBER_STORE(finish(s, n, correction));
    else partial[i] = s;
  }
}

extern "C" __global__ void ember_reduce_column_partials(const State* partial, Out* out,
                                                        long long rows, long long inner,
                                                        long long chunks, long long n,
                                                        long long correction) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < rows * inner;
       i += (long long)gridDim.x * blockDim.x) {
    const long long row = i / inner, j = i % inner;
    State s = identity();
    for (long long c = 0; c < chunks; ++c) s = combine(s, partial[(row * chunks + c) * inner + j]);
    out[i] = EMBER_STORE(finish(s, n, correction));
  }
}
)";

constexpr std::string_view kSoftmaxKernels = R"(
// NaN wins a max, as ndarray's lane_max: a NaN anywhere makes the row NaN.
__device__ __forceinline__ C ember_max(C m, C v) { return (isnan(m) || m >= v) ? m : v; }

// Block-wide reductions: shuffles within each warp, then the warps' results through shared memory.
__device__ C ember_block_max(C v) {
  __shared__ C warps[32];
  for (int offset = 16; offset > 0; offset /= 2) v = ember_max(v, __shfl_xor_sync(0xffffffffu, v, offset));
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = v;
  __syncthreads();
  v = warps[0];
  for (unsigned w = 1; w < blockDim.x / 32; ++w) v = ember_max(v, warps[w]);
  __syncthreads();
  return v;
}

__device__ C ember_block_sum(C v) {
  __shared__ C warps[32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = v;
  __syncthreads();
  v = warps[0];
  for (unsigned w = 1; w < blockDim.x / 32; ++w) v += warps[w];
  __syncthreads();
  return v;
}

// Rows of up to EMBER_CACHED * blockDim.x elements stay in registers: one read, one write.
#define EMBER_CACHED 8
extern "C" __global__ void ember_softmax_rows(const x_t* x, x_t* out, long long rows, long long n) {
  const x_t* lane = x + blockIdx.x * n;
  x_t* result = out + blockIdx.x * n;
  const C minus_infinity = -(C)__longlong_as_double(0x7ff0000000000000LL);
  C m = minus_infinity;
  if (n <= EMBER_CACHED * (long long)blockDim.x) {
    C cached[EMBER_CACHED];
#pragma unroll
    for (int j = 0; j < EMBER_CACHED; ++j) {
      const long long k = threadIdx.x + (long long)j * blockDim.x;
      cached[j] = k < n ? (C)x_load(lane[k]) : minus_infinity;
      if (k < n) m = ember_max(m, cached[j]);
    }
    m = ember_block_max(m);
    C sum = 0;
#pragma unroll
    for (int j = 0; j < EMBER_CACHED; ++j) {
      const long long k = threadIdx.x + (long long)j * blockDim.x;
      if (k < n) sum += exp(cached[j] - m);
    }
    sum = ember_block_sum(sum);
    const C log_sum = log(sum);
#pragma unroll
    for (int j = 0; j < EMBER_CACHED; ++j) {
      const long long k = threadIdx.x + (long long)j * blockDim.x;
      const C shifted = cached[j] - m;
      if (k < n) result[k] = x_store(EMBER_SOFTMAX(shifted));
    }
    return;
  }
  for (long long k = threadIdx.x; k < n; k += blockDim.x) m = ember_max(m, (C)x_load(lane[k]));
  m = ember_block_max(m);
  C sum = 0;
  for (long long k = threadIdx.x; k < n; k += blockDim.x) sum += exp((C)x_load(lane[k]) - m);
  sum = ember_block_sum(sum);
  const C log_sum = log(sum);
  for (long long k = threadIdx.x; k < n; k += blockDim.x) {
    const C shifted = (C)x_load(lane[k]) - m;
    result[k] = x_store(EMBER_SOFTMAX(shifted));
  }
}

// A warp a row of up to 32 * EMBER_PER_LANE elements, held in registers (the loops unroll over a
// constant, so the array stays out of local memory): every lane's loads are issued before the
// first use, one read and one write, no block-wide synchronization. Each lane moves EMBER_VEC
// consecutive elements at a time (16 bytes where the row length allows): a quarter of the load
// and store instructions for f32, which is what keeps the memory system busy.
typedef struct __align__(sizeof(x_t) * EMBER_VEC) { x_t v[EMBER_VEC]; } ember_softmax_vec;
extern "C" __global__ void ember_softmax_warp_rows(const x_t* __restrict__ x, x_t* __restrict__ out,
                                                   long long rows, long long n) {
  const long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;  // the whole warp: row is the same for its lanes
  const int lane = threadIdx.x % 32, count = (int)n;
  const ember_softmax_vec* lane_in = (const ember_softmax_vec*)(x + row * n);
  ember_softmax_vec* lane_out = (ember_softmax_vec*)(out + row * n);
  const C minus_infinity = -(C)__longlong_as_double(0x7ff0000000000000LL);
  constexpr int kVectors = EMBER_PER_LANE / EMBER_VEC;
  C shifted[EMBER_PER_LANE];
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const bool inside = (lane + 32 * j) * EMBER_VEC < count;
    ember_softmax_vec loaded;
    if (inside) loaded = lane_in[lane + 32 * j];
#pragma unroll
    for (int e = 0; e < EMBER_VEC; ++e)
      shifted[j * EMBER_VEC + e] = inside ? (C)x_load(loaded.v[e]) : minus_infinity;
  }
  C m = minus_infinity;
#pragma unroll
  for (int i = 0; i < EMBER_PER_LANE; ++i) m = ember_max(m, shifted[i]);
  for (int offset = 16; offset > 0; offset /= 2) m = ember_max(m, __shfl_xor_sync(0xffffffffu, m, offset));
  // Each element's exponential is computed once: softmax keeps it in place of the shifted value
  // (EMBER_SOFTMAX_KEPT), log-softmax the shifted value; a reciprocal multiplies the row.
  C sum = 0;
#pragma unroll
  for (int i = 0; i < EMBER_PER_LANE; ++i) {
    shifted[i] -= m;
    const C e = exp(shifted[i]);
    if ((lane + 32 * (i / EMBER_VEC)) * EMBER_VEC < count) sum += e;
    shifted[i] = EMBER_SOFTMAX_KEPT(shifted[i], e);
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const C log_sum = log(sum), inverse = (C)1 / sum;
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    if ((lane + 32 * j) * EMBER_VEC >= count) continue;
    ember_softmax_vec result;
#pragma unroll
    for (int e = 0; e < EMBER_VEC; ++e)
      result.v[e] = x_store(EMBER_SOFTMAX_FROM_KEPT(shifted[j * EMBER_VEC + e]));
    lane_out[lane + 32 * j] = result;
  }
}

extern "C" __global__ void ember_softmax_columns(const x_t* x, x_t* out, long long rows, long long n,
                                                 long long inner) {
  const long long count = rows * inner;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x) {
    const long long offset = i / inner * n * inner + i % inner;
    C m = -(C)__longlong_as_double(0x7ff0000000000000LL);
    for (long long k = 0; k < n; ++k) m = ember_max(m, (C)x_load(x[offset + k * inner]));
    C sum = 0;
    for (long long k = 0; k < n; ++k) sum += exp((C)x_load(x[offset + k * inner]) - m);
    const C log_sum = log(sum);
    for (long long k = 0; k < n; ++k) {
      const C shifted = (C)x_load(x[offset + k * inner]) - m;
      out[offset + k * inner] = x_store(EMBER_SOFTMAX(shifted));
    }
  }
}
)";

// ir/philox.h and ir/random.h on the GPU: Philox4x32-10 (Random123's rounds and key schedule)
// and the top 24 bits of word 0 as a uniform float. The normal's function is written out from
// random_formulas-inl.h (normal_function).
constexpr std::string_view kRandomFunctions = R"(
__device__ __forceinline__ void ember_philox(unsigned int c[4], unsigned int k0, unsigned int k1) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const unsigned int hi0 = __umulhi(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0];
    const unsigned int hi1 = __umulhi(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2];
    const unsigned int out0 = hi1 ^ c[1] ^ k0, out2 = hi0 ^ c[3] ^ k1;
    c[0] = out0;
    c[1] = lo1;
    c[2] = out2;
    c[3] = lo0;
  }
}

__device__ __forceinline__ float ember_uniform01(unsigned int hi) {
  return (float)(hi >> 8) * 0x1p-24f;
}
)";

/// ember_standard_normal(radius, angle): ir::standard_normal (f32), random_formulas-inl.h's
/// formula written out by the CUDA C target of the formulas.
std::string normal_function() {
  const codegen::CudaC c(DType::F32, "  ");
  const std::string z = formula::standard_normal_f32(c, std::string("radius"), "angle");
  return "__device__ float ember_standard_normal(float radius, float angle) {\n" + c.statements() +
         "  return " + z + ";\n}\n";
}

std::string threads_definition() {
  return "#define EMBER_THREADS " + std::to_string(kRowThreads) + "\n";
}

}  // namespace

std::string integer_type(DType dtype) {
  switch (dtype) {
    case DType::I64:
      return "long long";
    case DType::I32:
      return "int";
    case DType::I16:
      return "short";
    case DType::I8:
      return "signed char";
    case DType::U64:
      return "unsigned long long";
    case DType::U32:
      return "unsigned int";
    case DType::U16:
      return "unsigned short";
    case DType::U8:
      return "unsigned char";
    default:
      break;
  }
  throw InvalidArgument("[cuda] " + std::string(dtype_name(dtype)) + " is not an integer dtype");
}

std::string check_indices_source(DType index_dtype) {
  // Compared in the index's own signedness, so a huge u64 cannot wrap into range.
  const std::string bad = is_signed_int(index_dtype)
                              ? "(long long)v < 0 || (long long)v >= size"
                              : "(unsigned long long)v >= (unsigned long long)size";
  std::string source = "typedef " + integer_type(index_dtype) + " I;\n";
  source +=
      R"(extern "C" __global__ void ember_check_indices(const I* idx, long long n, long long size,
                                               unsigned long long* first_bad) {
  )";
  source += kGridStride;
  source += " {\n    const I v = idx[i];\n    if (" + bad +
            ") atomicMin(first_bad, (unsigned long long)i);\n  }\n}\n";
  return source;
}

/// The offset walk shared by gather and scatter: c's offset in the indexed tensor (and c's
/// coordinate along dim).
constexpr std::string_view kIndexedOffset = R"(
__device__ __forceinline__ long long ember_indexed_walk(long long i, const I* idx, int rank,
                                                        const ember_dims& sizes,
                                                        const ember_dims& strides, int dim,
                                                        int select, long long& along) {
  long long rest = i, offset = 0;
  along = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const long long c = rest % sizes.d[d];
    rest /= sizes.d[d];
    if (d == dim) along = c;
    else offset += c * strides.d[d];
  }
  return offset + (long long)idx[select ? along : i] * strides.d[dim];
}

__device__ __forceinline__ long long ember_indexed_offset(long long i, const I* idx, int rank,
                                                          const ember_dims& sizes,
                                                          const ember_dims& strides, int dim,
                                                          int select) {
  long long along;
  return ember_indexed_walk(i, idx, rank, sizes, strides, dim, select, along);
}
)";

std::string gather_source(std::size_t element_size, DType index_dtype) {
  std::string source(codegen::kCudaDimsDefinition);
  source += "typedef " + std::string(element_of_size(element_size)) + " E;\n";
  source += "typedef " + integer_type(index_dtype) + " I;\n";
  source += kIndexedOffset;
  source +=
      R"(extern "C" __global__ void ember_gather(const E* x, const I* idx, E* out, long long n,
                                        int rank, EMBER_DIMS_PARAM sizes, EMBER_DIMS_PARAM x_strides, int dim,
                                        int select) {
  )";
  source += kGridStride;
  source += " out[i] = x[ember_indexed_offset(i, idx, rank, sizes, x_strides, dim, select)];\n}\n";
  return source;
}

bool adds_atomically(DType dtype) {
  return dtype != DType::Bool;
}

namespace {

/// The sum of two narrow elements' bits (a and b, in the low bits of unsigned ints), as the
/// element type's bits: a float dtype adds in float and rounds once, as a lone add does; an
/// integer wraps (two's complement gives signed and unsigned the same bits).
std::string narrow_sum(DType dtype) {
  if (is_float(dtype)) {
    const std::string_view type = dtype == DType::F16 ? "f16" : "bf16";
    return "(unsigned int)ember_store_" + std::string(type) + "(ember_load_" + std::string(type) +
           "((unsigned short)a) + ember_load_" + std::string(type) + "((unsigned short)b))";
  }
  return "a + b";
}

/// atomicAdd of a 1- or 2-byte element: no hardware add of its width that every dtype has, so a
/// compare-and-swap loop on the aligned 32-bit word that holds it (the pools align every buffer
/// to far more than 4 bytes, so the word lies inside the buffer's slice).
std::string narrow_atomic_add(DType dtype) {
  std::string source(codegen::cuda::storage_helpers(dtype));
  source += R"(__device__ unsigned int ember_narrow_sum(unsigned int a, unsigned int b) {
  return )" +
            narrow_sum(dtype) +
            R"(;
}
__device__ void ember_atomic_add(T* address, T value) {
  unsigned int* word = (unsigned int*)((unsigned long long)address & ~3ull);
  const unsigned int shift = (unsigned int)((unsigned long long)address & 3ull) * 8u;
  const unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  const unsigned int bits = (unsigned int)value & (mask >> shift);
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const unsigned int sum = ember_narrow_sum((assumed & mask) >> shift, bits);
    old = atomicCAS(word, assumed, (assumed & ~mask) | ((sum << shift) & mask));
  } while (assumed != old);
}
)";
  return source;
}

}  // namespace

std::string scatter_add_source(DType dtype, DType index_dtype) {
  if (!adds_atomically(dtype))
    throw InvalidArgument("[cuda] no atomic add of " + std::string(dtype_name(dtype)));
  // i64 adds as u64: two's complement makes the wrapped sums the same bits.
  const std::string type = dtype == DType::I64 ? "unsigned long long"
                           : is_int(dtype)     ? integer_type(dtype)
                                               : std::string(codegen::cuda::storage_type(dtype));
  const bool narrow = dtype_size(dtype) < 4;
  std::string source(codegen::kCudaDimsDefinition);
  source += "typedef " + type + " T;\n";
  source += "typedef " + integer_type(index_dtype) + " I;\n";
  if (narrow) source += narrow_atomic_add(dtype);
  source += kIndexedOffset;
  source += R"(extern "C" __global__ void ember_scatter_add(const T* values, const I* idx, T* out,
                                             long long n, int rank, EMBER_DIMS_PARAM sizes,
                                             EMBER_DIMS_PARAM out_strides, int dim, int select) {
  )";
  source += kGridStride;
  source += narrow ? " ember_atomic_add(" : " atomicAdd(";
  source +=
      "out + ember_indexed_offset(i, idx, rank, sizes, out_strides, dim, select), values[i]);\n}\n";
  return source;
}

std::string scatter_assign_source(std::size_t element_size, DType index_dtype,
                                  bool wide_positions) {
  std::string source(codegen::kCudaDimsDefinition);
  source += "typedef " + std::string(element_of_size(element_size)) + " E;\n";
  source += "typedef " + integer_type(index_dtype) + " I;\n";
  source +=
      std::string("typedef ") + (wide_positions ? "unsigned long long" : "unsigned int") + " W;\n";
  source += kIndexedOffset;
  // A claim is the writer's position + 1 (0: nobody writes the slot). With select, the position
  // along dim decides alone: for fixed other coordinates, row-major order follows it.
  source += R"(extern "C" __global__ void ember_scatter_claim(const I* idx, W* winner, long long n,
                                               int rank, EMBER_DIMS_PARAM sizes, EMBER_DIMS_PARAM out_strides,
                                               int dim, int select) {
  )";
  source += kGridStride;
  source += R"( {
    const long long slot =
        select ? (long long)idx[i] : ember_indexed_offset(i, idx, rank, sizes, out_strides, dim, 0);
    atomicMax(winner + slot, (W)(i + 1));
  }
}

extern "C" __global__ void ember_scatter_assign(const E* values, const I* idx, E* out,
                                                const W* winner, long long n, int rank,
                                                EMBER_DIMS_PARAM sizes, EMBER_DIMS_PARAM out_strides, int dim,
                                                int select) {
  )";
  source += kGridStride;
  source += R"( {
    long long along;
    const long long offset =
        ember_indexed_walk(i, idx, rank, sizes, out_strides, dim, select, along);
    const long long claim = (select ? along : i) + 1;
    if (winner[select ? (long long)idx[along] : offset] == (W)claim) out[offset] = values[i];
  }
}
)";
  return source;
}

std::string columns_source(DType dtype) {
  std::string source = element_type(dtype, "x");
  source += std::string("typedef ") + (dtype == DType::F64 ? "double" : "float") + " C;\n";
  source += R"(struct ember_conv {
  long long in[3], out[3], kernel[3], stride[3], pad[3], dilation[3];
};

extern "C" __global__ void ember_im2col(const x_t* x, x_t* cols, long long N, long long channels,
                                        ember_conv g) {
  const long long K = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const long long L = g.out[0] * g.out[1] * g.out[2];
  const long long n_total = channels * K * N * L;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n_total;
       i += (long long)gridDim.x * blockDim.x) {
    long long o = i % L, rest = i / L;
    const long long n = rest % N;
    rest /= N;
    long long k = rest % K;
    const long long c = rest / K;
    long long offset = (n * channels + c);
    bool inside = true;
    long long kd[3], od[3];
    for (int d = 2; d >= 0; --d) {
      kd[d] = k % g.kernel[d];
      k /= g.kernel[d];
      od[d] = o % g.out[d];
      o /= g.out[d];
    }
    for (int d = 0; d < 3; ++d) {
      const long long at = od[d] * g.stride[d] - g.pad[d] + kd[d] * g.dilation[d];
      inside = inside && at >= 0 && at < g.in[d];
      offset = offset * g.in[d] + at;
    }
    cols[i] = inside ? x[offset] : (x_t)0;
  }
}

extern "C" __global__ void ember_col2im(const x_t* cols, x_t* x, long long N, long long channels,
                                        ember_conv g) {
  const long long K = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const long long L = g.out[0] * g.out[1] * g.out[2];
  const long long I = g.in[0] * g.in[1] * g.in[2];
  const long long n_total = N * channels * I;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n_total;
       i += (long long)gridDim.x * blockDim.x) {
    long long rest = i;
    long long id[3];
    for (int d = 2; d >= 0; --d) {
      id[d] = rest % g.in[d];
      rest /= g.in[d];
    }
    const long long c = rest % channels, n = rest / channels;
    C sum = 0;
    for (long long k = 0; k < K; ++k) {
      long long kr = k, o = 0;
      bool hit = true;
      long long kd[3];
      for (int d = 2; d >= 0; --d) {
        kd[d] = kr % g.kernel[d];
        kr /= g.kernel[d];
      }
      for (int d = 0; d < 3 && hit; ++d) {
        const long long t = id[d] + g.pad[d] - kd[d] * g.dilation[d];
        hit = t >= 0 && t % g.stride[d] == 0 && t / g.stride[d] < g.out[d];
        o = o * g.out[d] + t / g.stride[d];
      }
      if (hit) sum += (C)x_load(cols[((c * K + k) * N + n) * L + o]);
    }
    x[i] = x_store((double)sum);
  }
}
)";
  return source;
}

std::string pool_source(DType dtype, DType index_dtype) {
  std::string source = element_type(dtype, "x");
  source += "typedef " + integer_type(index_dtype) + " I;\n";
  source += R"(struct ember_pool {
  long long in[3], step[3], outs[3];
  const long long* windows[3];
  double divisor;
  int count_padding;
  int has_divisor;
};

/// Calls visit(position) for every input position of output cell o of a plane, in row-major order.
template <typename Visit>
__device__ __forceinline__ void ember_each_position(const ember_pool& p, long long o, Visit visit) {
  const long long c = o % p.outs[2], b = (o / p.outs[2]) % p.outs[1], a = o / p.outs[2] / p.outs[1];
  const long long* wa = p.windows[0] + 3 * a;
  const long long* wb = p.windows[1] + 3 * b;
  const long long* wc = p.windows[2] + 3 * c;
  for (long long i = 0; i < wa[1]; ++i) {
    const long long row_a = (wa[0] + i * p.step[0]) * p.in[1];
    for (long long j = 0; j < wb[1]; ++j) {
      const long long row_b = (row_a + wb[0] + j * p.step[1]) * p.in[2];
      for (long long k = 0; k < wc[1]; ++k) visit(row_b + wc[0] + k * p.step[2]);
    }
  }
}

extern "C" __global__ void ember_max_pool(const x_t* x, x_t* out, I* indices, long long planes,
                                          ember_pool p) {
  const long long cells = p.outs[0] * p.outs[1] * p.outs[2];
  const long long plane_size = p.in[0] * p.in[1] * p.in[2];
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < planes * cells;
       i += (long long)gridDim.x * blockDim.x) {
    const x_t* in = x + i / cells * plane_size;
    long long best = -1;
    ember_each_position(p, i % cells, [&](long long position) {
      if (best < 0) {
        best = position;
        return;
      }
      const double v = (double)x_load(in[position]);
      if (isnan(v) || v > (double)x_load(in[best])) best = position;
    });
    out[i] = in[best];
    indices[i] = (I)best;
  }
}

extern "C" __global__ void ember_avg_pool(const x_t* x, x_t* out, long long planes, ember_pool p) {
  const long long cells = p.outs[0] * p.outs[1] * p.outs[2];
  const long long plane_size = p.in[0] * p.in[1] * p.in[2];
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < planes * cells;
       i += (long long)gridDim.x * blockDim.x) {
    const x_t* in = x + i / cells * plane_size;
    double sum = 0.0;
    ember_each_position(p, i % cells, [&](long long position) { sum += (double)x_load(in[position]); });
    const long long o = i % cells;
    const long long c = o % p.outs[2], b = (o / p.outs[2]) % p.outs[1], a = o / p.outs[2] / p.outs[1];
    const int k = p.count_padding ? 2 : 1;
    const double divisor = p.has_divisor ? p.divisor
                           : (double)p.windows[0][3 * a + k] * (double)p.windows[1][3 * b + k] *
                                 (double)p.windows[2][3 * c + k];
    out[i] = x_store(sum / divisor);
  }
}
)";
  return source;
}

bool draws_on_gpu(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}

std::string random_source(Distribution::Kind kind, DType dtype) {
  if (!draws_on_gpu(dtype))
    throw InvalidArgument("[cuda] random " + std::string(dtype_name(dtype)) +
                          " is drawn on the host");
  std::string source(codegen::cuda::storage_helpers(dtype));
  source += "typedef " + std::string(codegen::cuda::storage_type(dtype)) + " T;\n";
  source += kRandomFunctions;
  std::string value;
  switch (kind) {
    case Distribution::Kind::Default:
      value = "u";
      break;
    case Distribution::Kind::Uniform:
      value = "fmaf(scale, u, shift)";
      break;
    case Distribution::Kind::Normal:
      source += normal_function();
      value =
          "fmaf(scale, ember_standard_normal(__fsub_rn(1.0f, u), ember_uniform01(c[2])), shift)";
      break;
    case Distribution::Kind::Bernoulli:
      value = "((c[0] >> 8) < threshold ? 1.0f : 0.0f)";
      break;
  }
  const std::string store = dtype == DType::F32   ? "v"
                            : dtype == DType::F16 ? "ember_store_f16(v)"
                                                  : "ember_store_bf16(v)";
  source += R"(extern "C" __global__ void ember_random(T* out, long long n, unsigned long long key,
                                        float scale, float shift, unsigned int threshold) {
  )";
  source += kGridStride;
  source += R"( {
    unsigned int c[4] = {(unsigned int)i, (unsigned int)((unsigned long long)i >> 32), 0u, 0u};
    ember_philox(c, (unsigned int)key, (unsigned int)(key >> 32));
    const float u = ember_uniform01(c[0]);
    const float v = )" +
            value + R"(;
    out[i] = )" +
            store + R"(;
  }
}
)";
  return source;
}

bool has_float_kernels(DType dtype) {
  return is_float(dtype);
}

std::string fill_source() {
  std::string source = R"(extern "C" __global__ void ember_fill(unsigned char* out, long long n,
    unsigned long long low, unsigned long long high) {
  const long long vectors = (n + 15) / 16;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < vectors;
       v += (long long)gridDim.x * blockDim.x) {
    if (16 * v + 16 <= n) {
      *reinterpret_cast<ulonglong2*>(out + 16 * v) = make_ulonglong2(low, high);
    } else {
      for (int b = 0; 16 * v + b < n; ++b)
        out[16 * v + b] = (unsigned char)((b < 8 ? low : high) >> (8 * (b % 8)));
    }
  }
}
)";
  return source;
}

std::string copy_source(std::size_t element_size) {
  std::string source(codegen::kCudaDimsDefinition);
  source += "typedef " + std::string(element_of_size(element_size)) + " E;\n";
  source += R"(extern "C" __global__ void ember_copy(const E* in, E* out, long long n, int rank,
                                      EMBER_DIMS_PARAM sizes, EMBER_DIMS_PARAM in_strides, long long in_offset,
                                      EMBER_DIMS_PARAM out_strides, long long out_offset) {
  )";
  source += kGridStride;
  // Coordinates in 32 bits below 2^31 elements: a 64-bit division costs tens of instructions.
  source += R"( {
    long long from = in_offset, to = out_offset;
    if (n <= 2147483647LL) {
      unsigned int rest = (unsigned int)i;
      for (int d = rank - 1; d >= 0; --d) {
        const unsigned int size = (unsigned int)sizes.d[d];
        const long long c = rest % size;
        rest /= size;
        from += c * in_strides.d[d];
        to += c * out_strides.d[d];
      }
    } else {
      long long rest = i;
      for (int d = rank - 1; d >= 0; --d) {
        const long long c = rest % sizes.d[d];
        rest /= sizes.d[d];
        from += c * in_strides.d[d];
        to += c * out_strides.d[d];
      }
    }
    out[to] = in[from];
  }
}
)";
  // A transpose: the input's contiguous dim a is not the last one, which the output's is. Each
  // 32 x 32 tile of the (a, last) plane goes through shared memory, read along a and written
  // along last, so both sides move whole cache lines (ember_copy would read one element of each
  // line). Blocks of 256 threads: 32 lanes x 8 rows, each thread four of the tile's 32 rows.
  source += R"(extern "C" __global__ void ember_transpose_copy(const E* in, E* out, int rank,
      EMBER_DIMS_PARAM sizes, EMBER_DIMS_PARAM in_strides, long long in_offset, EMBER_DIMS_PARAM out_strides,
      long long out_offset, int a, long long tiles_a, long long tiles_last, long long planes) {
  __shared__ E tile[32][33];
  const int last = rank - 1, lane = threadIdx.x & 31, row = threadIdx.x >> 5;
  for (long long t = blockIdx.x; t < tiles_a * tiles_last * planes; t += gridDim.x) {
    const long long a0 = (t % tiles_a) * 32, l0 = (t / tiles_a % tiles_last) * 32;
    long long plane = t / (tiles_a * tiles_last), from = in_offset, to = out_offset;
    for (int d = rank - 2; d >= 0; --d) {
      if (d == a) continue;
      const long long c = plane % sizes.d[d];
      plane /= sizes.d[d];
      from += c * in_strides.d[d];
      to += c * out_strides.d[d];
    }
    for (int k = row; k < 32; k += 8) {
      const long long ca = a0 + lane, cl = l0 + k;
      if (ca < sizes.d[a] && cl < sizes.d[last])
        tile[k][lane] = in[from + ca * in_strides.d[a] + cl * in_strides.d[last]];
    }
    __syncthreads();
    for (int k = row; k < 32; k += 8) {
      const long long ca = a0 + k, cl = l0 + lane;
      if (ca < sizes.d[a] && cl < sizes.d[last])
        out[to + ca * out_strides.d[a] + cl * out_strides.d[last]] = tile[lane][k];
    }
    __syncthreads();
  }
}
)";
  return source;
}

std::string cast_source(DType from, DType to) {
  std::string source = element_type(from, "in") + element_type(to, "out");
  source +=
      "extern \"C\" __global__ void ember_cast(const in_t* in, out_t* out, long long n) {\n  ";
  source += kGridStride;
  source += " out[i] = out_store((double)in_load(in[i]));\n}\n";
  return source;
}

namespace {

/// The C type sums and products of dtype accumulate in, and its bytes: double for the floats
/// (ndarray's accumulator_t); for the integers an unsigned type of at least 32 bits, where
/// arithmetic wraps without undefined behaviour, and whose value modulo 2^bits is the dtype's
/// wrapped sum (ndarray's wrapping_add and wrapping_mul), whatever the order of the additions.
std::pair<std::string_view, std::size_t> sum_accumulator(DType dtype) {
  if (is_float(dtype)) return {"double", 8};
  if (dtype_size(dtype) == 8) return {"unsigned long long", 8};
  return {"unsigned int", 4};
}

/// A reduction's input element and accumulator types: x_t, x_load(x_t), x_store(value) -> x_t,
///   ember_sum_t   sums and products (sum_accumulator),
///   ember_value_t extremes and truths: double for floats, the integer widened with its sign
///                 (Bool as 0 or 1),
///   ember_isnan(ember_value_t), ember_mean(ember_sum_t sum, long long n) -> ember_value_t
///                 (ndarray's: in double for floats; for integers the wrapped sum divided by n in
///                 64 bits, truncating).
std::string reduce_element(DType dtype) {
  std::string source = "typedef " + std::string(sum_accumulator(dtype).first) + " ember_sum_t;\n";
  if (is_float(dtype)) {
    return source + element_type(dtype, "x") +
           "typedef double ember_value_t;\n"
           "__device__ __forceinline__ bool ember_isnan(double v) { return isnan(v); }\n"
           "__device__ __forceinline__ double ember_mean(double sum, long long n) {\n"
           "  return sum / (double)n;\n}\n";
  }
  const bool is_signed = is_signed_int(dtype);
  const std::string wide = is_signed ? "long long" : "unsigned long long";
  source += "typedef " + std::string(codegen::cuda::storage_type(dtype)) + " x_t;\n";
  source += "typedef " + wide + " ember_value_t;\n";
  source += R"(__device__ __forceinline__ x_t x_load(x_t v) { return v; }
template <typename V>
__device__ __forceinline__ x_t x_store(V v) { return (x_t)v; }
__device__ __forceinline__ bool ember_isnan(ember_value_t) { return false; }
__device__ __forceinline__ ember_value_t ember_mean(ember_sum_t sum, long long n) {
  return (ember_value_t)(x_t)sum / (ember_value_t)n;
}
)";
  return source;
}

}  // namespace

bool has_reduce_kernel(ReduceOp op, DType dtype) {
  return is_float(dtype) || op != ReduceOp::Var;
}

std::string reduce_source(const ir::Reduce& op, DType dtype, DType out_dtype) {
  if (!has_reduce_kernel(op.op, dtype))
    throw InvalidArgument("[cuda] no reduction kernel for " + std::string(dtype_name(dtype)));
  std::string source = threads_definition() + reduce_element(dtype);
  source += "typedef " + out_type(op.op, dtype, out_dtype) + " Out;\n";
  source += "#define EMBER_STORE " + store_out(op.op) + "\n";
  source += reduction_state(op.op);
  source += kBlockCombine;
  source += kReduceKernels;
  return source;
}

std::size_t reduce_state_size(const ir::Reduce& op, DType dtype) {
  switch (op.op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod:
      return sum_accumulator(dtype).second;
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return 16;
    case ReduceOp::Var:
      return 24;
    case ReduceOp::Any:
    case ReduceOp::All:
      return 4;
  }
  throw InvalidArgument("[cuda] unknown reduction");
}

std::string softmax_source(const ir::Softmax& op, DType dtype, int per_lane, int vector) {
  std::string source = threads_definition() + element_type(dtype, "x");
  source += "#define EMBER_PER_LANE " + std::to_string(per_lane) + "\n";
  source += std::string("typedef ") + (dtype == DType::F64 ? "double" : "float") + " C;\n";
  source += "#define EMBER_VEC " + std::to_string(vector) + "\n";
  source += op.log ? "#define EMBER_SOFTMAX(s) ((s) - log_sum)\n"
                     "#define EMBER_SOFTMAX_KEPT(s, e) (s)\n"
                     "#define EMBER_SOFTMAX_FROM_KEPT(k) ((k) - log_sum)\n"
                   : "#define EMBER_SOFTMAX(s) (exp(s) / sum)\n"
                     "#define EMBER_SOFTMAX_KEPT(s, e) (e)\n"
                     "#define EMBER_SOFTMAX_FROM_KEPT(k) ((k) * inverse)\n";
  source += kSoftmaxKernels;
  return source;
}

}  // namespace ember::cuda
