#include "backends/cuda/scan_sort_kernels.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "backends/cuda/kernel_sources.h"
#include "codegen/cuda_ops.h"
#include "ember/error.h"

namespace ember::cuda {
namespace {

using ir::CumulativeOp;

/// T (dtype's storage), ember_value(v) (the value ndarray compares: a float dtype loaded as float
/// or double, an integer or Bool as itself) and ember_is_nan(v).
std::string value_helpers(DType dtype) {
  if (is_float(dtype)) {
    return element_type(dtype, "x") +
           "typedef x_t T;\n"
           "__device__ __forceinline__ auto ember_value(T v) { return x_load(v); }\n"
           "__device__ __forceinline__ bool ember_is_nan(T v) { return isnan(x_load(v)); }\n";
  }
  return "typedef " + std::string(codegen::cuda::storage_type(dtype)) +
         " T;\n"
         "__device__ __forceinline__ T ember_value(T v) { return v; }\n"
         "__device__ __forceinline__ bool ember_is_nan(T) { return false; }\n";
}

/// ember_shuffle(v, lane): the T of another lane of the warp, moved as a 32- or 64-bit word
/// (__shfl_sync takes no 8- or 16-bit types).
std::string shuffle_helper(DType dtype) {
  const std::string word = dtype_size(dtype) == 8 ? "unsigned long long" : "unsigned int";
  return "typedef " + word + R"( ember_word;
__device__ __forceinline__ T ember_shuffle(T v, int lane) {
  ember_word w = 0;
  memcpy(&w, &v, sizeof(T));
  w = __shfl_sync(0xffffffffu, w, lane);
  T r;
  memcpy(&r, &w, sizeof(T));
  return r;
}
)";
}

/// ember_step(total, best, v, k): element k of a line joins the running state; best is then the
/// output at k. Sums and products keep total (A: double for floats, as ndarray's accumulator_t;
/// an unsigned word for integers, whose wrapped sums and products are the same bits); max and min
/// keep best alone.
std::string step_function(CumulativeOp op, DType dtype) {
  const bool floats = is_float(dtype);
  std::string source = std::string("typedef ") +
                       (floats                   ? "double"
                        : dtype_size(dtype) == 8 ? "unsigned long long"
                                                 : "unsigned int") +
                       " A;\n";
  const std::string store = floats ? "x_store(total)" : "(T)total";
  const auto total = [&](std::string_view identity, std::string_view operation) {
    return "#define EMBER_IDENTITY " + std::string(identity) +
           "\n__device__ __forceinline__ void ember_step(A& total, T& best, T v, long long) {\n"
           "  total = total " +
           std::string(operation) + " (A)ember_value(v);\n  best = " + store + ";\n}\n";
  };
  // The first element, a NaN, or a strictly better value (while best is no NaN) takes best's
  // place: equal values keep the first, a later NaN replaces an earlier one, as ndarray's loop.
  const auto extreme = [&](std::string_view better) {
    return "#define EMBER_IDENTITY 0\n"
           "__device__ __forceinline__ void ember_step(A&, T& best, T v, long long k) {\n"
           "  if (k == 0 || ember_is_nan(v) || (!ember_is_nan(best) && ember_value(v) " +
           std::string(better) + " ember_value(best)))\n    best = v;\n}\n";
  };
  switch (op) {
    case CumulativeOp::Sum:
      return source + total("0", "+");
    case CumulativeOp::Prod:
      return source + total("1", "*");
    case CumulativeOp::Max:
      return source + extreme(">");
    case CumulativeOp::Min:
      return source + extreme("<");
  }
  throw InvalidArgument("[cuda] unknown cumulative op");
}

constexpr std::string_view kCumulativeKernels = R"(
extern "C" __global__ void ember_cumulative_rows(const T* __restrict__ x, T* __restrict__ out,
                                                 long long rows, long long n) {
  const long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;  // the whole warp: row is the same for its lanes
  const int lane = threadIdx.x % 32;
  const T* in = x + row * n;
  T* result = out + row * n;
  A total = EMBER_IDENTITY;
  T best = T();
  for (long long begin = 0; begin < n; begin += 32) {
    const int count = (int)min(32LL, n - begin);
    const T mine = lane < count ? in[begin + lane] : T();
    T kept = T();
    // Every lane runs every step (the state stays the same in all): element j's output is kept
    // by lane j, which writes it with the others below.
    for (int j = 0; j < count; ++j) {
      ember_step(total, best, ember_shuffle(mine, j), begin + j);
      if (lane == j) kept = best;
    }
    if (lane < count) result[begin + lane] = kept;
  }
}

extern "C" __global__ void ember_cumulative_columns(const T* __restrict__ x, T* __restrict__ out,
                                                    long long rows, long long n, long long inner) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < rows * inner;
       i += (long long)gridDim.x * blockDim.x) {
    const long long offset = i / inner * n * inner + i % inner;
    A total = EMBER_IDENTITY;
    T best = T();
    for (long long k = 0; k < n; ++k) {
      ember_step(total, best, x[offset + k * inner], k);
      out[offset + k * inner] = best;
    }
  }
}
)";

/// A strict order of (value, position) pairs: ndarray's stable sort. Positions at or past n are
/// the padding of a line shorter than the capacity: after every element.
constexpr std::string_view kSortKernel = R"(
__device__ __forceinline__ bool ember_less(T a, T b) {
  return !ember_is_nan(a) && (ember_is_nan(b) || ember_value(a) < ember_value(b));
}
__device__ __forceinline__ bool ember_before(T a, int pa, T b, int pb, int n) {
  if (pa >= n) return false;
  if (pb >= n) return true;
  const bool earlier = EMBER_DESCENDING ? ember_less(b, a) : ember_less(a, b);
  const bool later = EMBER_DESCENDING ? ember_less(a, b) : ember_less(b, a);
  return earlier || (!later && pa < pb);
}

extern "C" __global__ void ember_sort(const T* __restrict__ x, T* __restrict__ values,
                                      I* __restrict__ indices, long long lines, long long n,
                                      long long inner) {
  __shared__ T keys[EMBER_CAPACITY];
  __shared__ unsigned short positions[EMBER_CAPACITY];  // EMBER_CAPACITY <= 65536
  const int count = (int)n;
  for (long long line = blockIdx.x; line < lines; line += gridDim.x) {
    const long long start = line / inner * n * inner + line % inner;
    for (int k = threadIdx.x; k < EMBER_CAPACITY; k += blockDim.x) {
      if (k < count) keys[k] = x[start + k * inner];
      positions[k] = (unsigned short)k;
    }
    __syncthreads();
    // The bitonic network: sequences of size ascending and descending in turn, merged.
    for (int size = 2; size <= EMBER_CAPACITY; size *= 2) {
      for (int stride = size / 2; stride > 0; stride /= 2) {
        for (int t = threadIdx.x; t < EMBER_CAPACITY / 2; t += blockDim.x) {
          const int i = 2 * t - (t & (stride - 1)), j = i + stride;
          const T ki = keys[i], kj = keys[j];
          const int pi = positions[i], pj = positions[j];
          const bool swap = (i & size) == 0 ? ember_before(kj, pj, ki, pi, count)
                                            : ember_before(ki, pi, kj, pj, count);
          if (swap) {
            keys[i] = kj;
            keys[j] = ki;
            positions[i] = (unsigned short)pj;
            positions[j] = (unsigned short)pi;
          }
        }
        __syncthreads();
      }
    }
    for (int k = threadIdx.x; k < count; k += blockDim.x) {
      values[start + k * inner] = keys[k];
      indices[start + k * inner] = (I)positions[k];
    }
    __syncthreads();  // the next line's loads overwrite keys
  }
}
)";

}  // namespace

std::string cumulative_source(CumulativeOp op, DType dtype) {
  if (dtype == DType::Bool) throw InvalidArgument("[cuda] no cumulative kernel for bool");
  std::string source = value_helpers(dtype) + shuffle_helper(dtype) + step_function(op, dtype);
  source += kCumulativeKernels;
  return source;
}

std::string arange_source(DType dtype) {
  std::string source = "typedef " + integer_type(dtype) + " T;\n";
  source += R"(extern "C" __global__ void ember_arange(T* out, long long n, long long start,
                                        long long step) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = (T)((unsigned long long)start + (unsigned long long)i * (unsigned long long)step);
}
)";
  return source;
}

int64_t sort_capacity(int64_t n) {
  int64_t capacity = 32;
  while (capacity < n)
    capacity *= 2;
  return capacity;
}

unsigned sort_threads(int64_t capacity) {
  return static_cast<unsigned>(std::clamp<int64_t>(capacity / 2, 32, 1024));
}

std::string sort_source(DType dtype, DType index_dtype, bool descending, int64_t capacity) {
  if (capacity > kSortMaxLine || capacity < 32 || (capacity & (capacity - 1)) != 0)
    throw InvalidArgument("[cuda] no sort kernel for lines of " + std::to_string(capacity));
  std::string source = value_helpers(dtype);
  source += "typedef " + integer_type(index_dtype) + " I;\n";
  source += "#define EMBER_CAPACITY " + std::to_string(capacity) + "\n";
  source += std::string("#define EMBER_DESCENDING ") + (descending ? "true" : "false") + "\n";
  source += kSortKernel;
  return source;
}

}  // namespace ember::cuda
