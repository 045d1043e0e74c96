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

}  // namespace

MatmulKernel::MatmulKernel(const KernelRunner& runner, const Features& features)
    : features_(features),
      runner_(runner),
      tiled_f32_(tiled_matmul_source(DType::F32)),
      tiled_f64_(tiled_matmul_source(DType::F64)),
      tiled_f16_(tiled_matmul_source(DType::F16)),
      sum_f32_(matmul_partials_sum_source(DType::F32)),
      sum_f64_(matmul_partials_sum_source(DType::F64)) {
  if (features_.cooperative_f16) {
    cooperative_aligned_ = cooperative_matmul_source(*features_.cooperative_f16, true);
    cooperative_unaligned_ = cooperative_matmul_source(*features_.cooperative_f16, false);
  }
}

const std::string& MatmulKernel::source(DType dtype, uint64_t k, uint64_t n) const {
  if (dtype == DType::F16 && features_.cooperative_f16)
    return cooperative_aligned(k, n) ? cooperative_aligned_ : cooperative_unaligned_;
  return dtype == DType::F64 ? tiled_f64_ : dtype == DType::F16 ? tiled_f16_ : tiled_f32_;
}

uint64_t MatmulKernel::tile(DType dtype) const {
  // The cooperative kernel's tiles are square: its shape has m == n (vulkan_context.cpp).
  if (dtype == DType::F16 && features_.cooperative_f16)
    return cooperative_tile_rows(*features_.cooperative_f16);
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

void MatmulKernel::run(const BufferRange& a, const BufferRange& b, const BufferRange& c,
                       const ir::TensorMeta& lhs, const ir::TensorMeta& rhs,
                       const ir::TensorMeta& out, const shader::Scratch<BufferRange>& scratch) {
  const shader::MatmulGeometry g = *geometry(lhs, rhs, out);
  const bool cooperative = lhs.dtype == DType::F16 && features_.cooperative_f16.has_value();
  BufferRange partials{};
  const std::shared_ptr<const void> held =
      g.splits > 1 ? scratch(g.partial_elements() * dtype_size(lhs.dtype), &partials) : nullptr;
  shader::record_matmul(
      g, [&] { runner_.stream().fill_zero(c); },
      [&](const std::vector<uint32_t>& words, const std::array<uint32_t, 3>& groups) {
        const BufferRange tensors[] = {a, b, g.splits > 1 ? partials : c};
        runner_.dispatch(source(lhs.dtype, g.k, g.n), std::as_bytes(std::span(words)), tensors,
                         groups[0], groups[1], groups[2]);
        ++(cooperative ? shader::matmul_runs().cooperative : shader::matmul_runs().tiled);
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
