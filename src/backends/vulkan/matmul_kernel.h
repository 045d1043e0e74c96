// The vulkan backend's matmul: the tiled kernel (64 x 64 output tiles, 4 x 4 blocks an invocation,
// k through shared memory 16 at a time, products accumulated by fma in order along k) on f32, f64
// (where the device has doubles) and f16 (in f32, rounded once at the store; f32 and f64 with k
// split into chunks where the output tiles are too few to fill the device, the chunks' partial
// results then added in order by a second kernel), and on f16 the
// kernel of cooperative matrices where the driver offers them (Features::cooperative_f16). The
// geometry (which products, batch offsets with broadcasts, parameter words, grid) is shared with
// wgpu (backends/shader/matmul_geometry.h); the sources are matmul_sources.h's.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "backends/shader/kernel_runner.h"
#include "backends/shader/matmul_geometry.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_runner.h"
#include "ir/ops.h"

namespace ember::vulkan {

class MatmulKernel {
 public:
  /// features: the dtypes the device computes and its cooperative matrices.
  MatmulKernel(const KernelRunner& runner, const Features& features);

  /// Whether run takes the product of lhs and rhs (ir::infer's operands of a Matmul, result out):
  /// a float dtype the device computes (bf16 never), and shader::matmul_geometry's limits.
  bool takes(const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out) const;
  using Operand = shader::ProductOperand<BufferRange>;

  /// Whether run reads an operand of dtype transposed as it is (the tiled kernel; not the
  /// cooperative one).
  bool reads_transposed(DType dtype) const;
  /// Records the product of a (lhs) and b (rhs) into c (out, contiguous). takes() holds, and
  /// reads_transposed where an operand is transposed. scratch: the partial results' buffer where
  /// k is split.
  void run(const Operand& a, const Operand& b, const BufferRange& c, const ir::TensorMeta& lhs,
           const ir::TensorMeta& rhs, const ir::TensorMeta& out,
           const shader::Scratch<BufferRange>& scratch);

 private:
  /// The output tile's side of the kernel run takes for dtype.
  uint64_t tile(DType dtype) const;
  std::optional<shader::MatmulGeometry> geometry(const ir::TensorMeta& lhs,
                                                 const ir::TensorMeta& rhs,
                                                 const ir::TensorMeta& out) const;

  /// Whether a product of dtype runs on the cooperative kernel.
  bool cooperative(DType dtype) const;
  /// The source of the kernel a product of dtype runs (the cooperative one of k and n).
  const std::string& source(DType dtype, uint64_t k, uint64_t n, bool lhs_transposed,
                            bool rhs_transposed) const;

  Features features_;
  KernelRunner runner_;
  // Each source written once (a product's dispatch would otherwise write it again every call).
  std::array<std::string, 12> tiled_;  ///< f32, f64, f16, each of 4 operand layouts
  std::string cooperative_aligned_, cooperative_unaligned_;
  std::string sum_f32_, sum_f64_;
};

}  // namespace ember::vulkan
