#include "backends/cuda/resample_kernels.h"

#include <bit>
#include <string>
#include <vector>

#include "backends/cuda/kernel_sources.h"

namespace ember::cuda {
namespace {

constexpr std::string_view kResampleKernel = R"(
extern "C" __global__ void ember_resample(const void* src, void* dst, int from_x, int to_x,
                                          long long outer, long long src_size,
                                          long long dst_size, long long inner,
                                          const long long* table) {
  const long long* from = table + dst_size + 1;
  const double* weight = (const double*)(from + table[dst_size]);
  const long long count = outer * dst_size * inner;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x) {
    const long long k = i % inner, rest = i / inner, o = rest % dst_size, b = rest / dst_size;
    double sum = 0.0;
    for (long long e = table[o]; e < table[o + 1]; ++e) {
      const long long at = (b * src_size + from[e]) * inner + k;
      const double v = from_x ? (double)x_load(((const x_t*)src)[at]) : ((const double*)src)[at];
      // Rounded products and sums (no fused multiply-add), as ndarray's loop computes them.
      sum = __dadd_rn(sum, __dmul_rn(weight[e], v));
    }
    if (to_x) ((x_t*)dst)[i] = x_store(sum);
    else ((double*)dst)[i] = sum;
  }
}
)";

constexpr std::string_view kAvgPoolGradKernel = R"(
struct ember_pool_grad {
  long long in[3], outs[3];
  const long long* windows[3];
  const long long* covers[3];
  double divisor;
  int count_padding;
  int has_divisor;
};

extern "C" __global__ void ember_avg_pool_grad(const x_t* grad, x_t* dx, long long planes,
                                               ember_pool_grad p) {
  const long long plane_in = p.in[0] * p.in[1] * p.in[2];
  const long long plane_out = p.outs[0] * p.outs[1] * p.outs[2];
  const int k = p.count_padding ? 2 : 1;
  // Axis d's covers: offsets[in[d] + 1], then the output indices.
  const long long* c0 = p.covers[0];
  const long long* c1 = p.covers[1];
  const long long* c2 = p.covers[2];
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < planes * plane_in;
       i += (long long)gridDim.x * blockDim.x) {
    const x_t* g = grad + i / plane_in * plane_out;
    const long long q = i % plane_in;
    const long long x2 = q % p.in[2], x1 = q / p.in[2] % p.in[1], x0 = q / p.in[2] / p.in[1];
    double sum = 0.0;
    for (long long e0 = c0[x0]; e0 < c0[x0 + 1]; ++e0) {
      const long long a = c0[p.in[0] + 1 + e0];
      for (long long e1 = c1[x1]; e1 < c1[x1 + 1]; ++e1) {
        const long long b = c1[p.in[1] + 1 + e1];
        for (long long e2 = c2[x2]; e2 < c2[x2 + 1]; ++e2) {
          const long long c = c2[p.in[2] + 1 + e2];
          const double divisor =
              p.has_divisor ? p.divisor
                            : (double)p.windows[0][3 * a + k] * (double)p.windows[1][3 * b + k] *
                                  (double)p.windows[2][3 * c + k];
          sum += (double)x_load(g[(a * p.outs[1] + b) * p.outs[2] + c]) / divisor;
        }
      }
    }
    dx[i] = x_store(sum);
  }
}
)";

/// entries[d] listed as offsets[size + 1] into their concatenation, then the concatenation.
void append_lists(std::vector<int64_t>& table, const std::vector<std::vector<int64_t>>& lists) {
  int64_t offset = 0;
  table.push_back(offset);
  for (const std::vector<int64_t>& list : lists) {
    offset += static_cast<int64_t>(list.size());
    table.push_back(offset);
  }
  for (const std::vector<int64_t>& list : lists)
    table.insert(table.end(), list.begin(), list.end());
}

}  // namespace

std::string resample_source(DType dtype) {
  return element_type(dtype, "x") + std::string(kResampleKernel);
}

std::vector<int64_t> resample_table(const ndarray::interpolate::DimPlan& plan, bool transposed) {
  const int64_t dst_size = transposed ? plan.in : plan.out;
  std::vector<std::vector<int64_t>> from(static_cast<std::size_t>(dst_size));
  std::vector<std::vector<int64_t>> weight(static_cast<std::size_t>(dst_size));
  for (int64_t o = 0; o < plan.out; ++o) {
    const ndarray::interpolate::Taps& taps = plan.taps[static_cast<std::size_t>(o)];
    for (std::size_t t = 0; t < taps.count; ++t) {
      const auto to = static_cast<std::size_t>(transposed ? taps.index[t] : o);
      from[to].push_back(transposed ? o : taps.index[t]);
      weight[to].push_back(std::bit_cast<int64_t>(taps.weight[t]));
    }
  }
  std::vector<int64_t> table;
  append_lists(table, from);
  for (const std::vector<int64_t>& list : weight)
    table.insert(table.end(), list.begin(), list.end());
  return table;
}

std::string avg_pool_grad_source(DType dtype) {
  return element_type(dtype, "x") + std::string(kAvgPoolGradKernel);
}

PoolGradTables pool_grad_tables(const ndarray::pool::Windows& windows) {
  PoolGradTables tables;
  for (std::size_t d = 0; d < 3; ++d) {
    const ndarray::pool::Axis& axis = windows.axes[d];
    tables.windows_at[d] = tables.table.size();
    for (const ndarray::pool::Window& w : axis.windows)
      tables.table.insert(tables.table.end(), {w.first, w.count, w.padded_count});
    // Windows in ascending order: each input index's list comes out ascending.
    std::vector<std::vector<int64_t>> covers(static_cast<std::size_t>(axis.in_size));
    for (std::size_t o = 0; o < axis.windows.size(); ++o) {
      const ndarray::pool::Window& w = axis.windows[o];
      for (int64_t j = 0; j < w.count; ++j)
        covers[static_cast<std::size_t>(w.first + j * axis.step)].push_back(
            static_cast<int64_t>(o));
    }
    tables.covers_at[d] = tables.table.size();
    append_lists(tables.table, covers);
  }
  return tables;
}

}  // namespace ember::cuda
