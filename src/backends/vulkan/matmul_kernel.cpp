#include "backends/vulkan/matmul_kernel.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/shader/matmul_runs.h"
#include "backends/vulkan/matmul_sources.h"

namespace ember::vulkan {
namespace {

// The least maxComputeWorkGroupCount Vulkan allows along each axis.
constexpr uint64_t kMaxGroups = 65535;

/// The tiled kernel's place in MatmulKernel::tiled_: by dtype, then by which operand is read
/// transposed.
std::size_t tiled_index(DType dtype, bool lhs_transposed, bool rhs_transposed) {
  const std::size_t of_dtype = dtype == DType::F64 ? 1 : dtype == DType::F16 ? 2 : 0;
  return of_dtype * 4 + (lhs_transposed ? 2 : 0) + (rhs_transposed ? 1 : 0);
}

}  // namespace

MatmulKernel::MatmulKernel(const KernelRunner& runner, const Features& features)
    : features_(features),
      runner_(runner),
      sum_f32_(matmul_partials_sum_source(DType::F32)),
      sum_f64_(matmul_partials_sum_source(DType::F64)) {
  for (const DType dtype : {DType::F32, DType::F64, DType::F16})
    for (const bool lhs_transposed : {false, true})
      for (const bool rhs_transposed : {false, true})
        tiled_[tiled_index(dtype, lhs_transposed, rhs_transposed)] =
            tiled_matmul_source(dtype, lhs_transposed, rhs_transposed);
  if (features_.cooperative_f16) {
    cooperative_aligned_ = cooperative_matmul_source(*features_.cooperative_f16, true);
    cooperative_unaligned_ = cooperative_matmul_source(*features_.cooperative_f16, false);
  }
}

bool MatmulKernel::cooperative(DType dtype) const {
  return dtype == DType::F16 && features_.cooperative_f16.has_value();
}

bool MatmulKernel::reads_transposed(DType dtype) const {
  return (dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16) && !cooperative(dtype);
}

const std::string& MatmulKernel::source(DType dtype, uint64_t k, uint64_t n, bool lhs_transposed,
                                        bool rhs_transposed) const {
  if (cooperative(dtype))
    return cooperative_aligned(k, n) ? cooperative_aligned_ : cooperative_unaligned_;
  return tiled_[tiled_index(dtype, lhs_transposed, rhs_transposed)];
}

uint64_t MatmulKernel::tile(DType dtype) const {
  // The cooperative kernel's tiles are square: its shape has m == n (vulkan_context.cpp).
  if (cooperative(dtype)) return cooperative_tile_rows(*features_.cooperative_f16);
  return shader::kMatmulTile;
}

std::optional<shader::MatmulGeometry> MatmulKernel::geometry(const ir::TensorMeta& lhs,
                                                             const ir::TensorMeta& rhs,
                                                             const ir::TensorMeta& out) const {
  const bool dtype = lhs.dtype == DType::F32 || (lhs.dtype == DType::F64 && features_.float64) ||
                     (lhs.dtype == DType::F16 && features_.float16 && features_.storage16);
  if (!dtype || rhs.dtype != lhs.dtype) return std::nullopt;
  // f16 is not split: its partials would round to f16 (the cooperative kernel's are its own).
  const uint64_t fill = lhs.dtype == DType::F16 ? 0 : runner_.limits().fill_groups;
  return shader::matmul_geometry(lhs, rhs, out, dtype_size(lhs.dtype), runner_.limits().max_binding,
                                 kMaxGroups, runner_.limits().max_loop_turns, tile(lhs.dtype),
                                 fill);
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
      g.splits > 1 ? scratch(g.partial_elements() * dtype_size(lhs.dtype), &partials) : nullptr;
  shader::record_matmul(
      g, [&] { runner_.stream().fill_zero(c); },
      [&](const std::vector<uint32_t>& words, const std::array<uint32_t, 3>& groups) {
        const BufferRange tensors[] = {a.range, b.range, g.splits > 1 ? partials : c};
        shader::matmul_runs().transposed += (a.transposed ? 1 : 0) + (b.transposed ? 1 : 0);
        runner_.dispatch(source(lhs.dtype, g.k, g.n, a.transposed, b.transposed),
                         std::as_bytes(std::span(words)), tensors, groups[0], groups[1], groups[2]);
        ++(cooperative(lhs.dtype) ? shader::matmul_runs().cooperative
                                  : shader::matmul_runs().tiled);
      },
      [&] {
        const std::vector<uint32_t> words = g.sum_words();
        const BufferRange tensors[] = {partials, c};
        runner_.dispatch(lhs.dtype == DType::F64 ? sum_f64_ : sum_f32_,
                         std::as_bytes(std::span(words)), tensors, g.sum_groups(kMaxGroups));
        ++shader::matmul_runs().split;
      },
      tile(lhs.dtype));
}

}  // namespace ember::vulkan
