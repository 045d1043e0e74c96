// MatmulKernel: matmul on a WebGPU device on f32 and f16 (f16 in f32, rounded once at the store,
// packed two to a word), a WGSL kernel of 64 x 64 output tiles, each invocation a 4 x 4 block in
// registers, k through workgroup memory 16 at a time, each product accumulated by fma in order
// along k (as the vulkan backend's; f32 with k split into chunks where the output tiles are too
// few to fill the device, the chunks' partials then added in order by a second kernel). The
// geometry (which products, batch offsets with broadcasts, parameter words, grid) is shared with
// vulkan (backends/shader/matmul_geometry.h).
#pragma once

#include <array>
#include <optional>
#include <string>

#include "backends/shader/kernel_runner.h"
#include "backends/shader/matmul_geometry.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"
#include "ir/program.h"

namespace ember::wgpu {

/// The WGSL of the kernel on dtype (F32 or F16), apart from the device for tests.
/// lhs_transposed, rhs_transposed: that operand's buffer holds its transpose ([..., k, m],
/// [..., n, k]), read as it is.
std::string matmul_source(DType dtype, bool lhs_transposed = false, bool rhs_transposed = false);
/// The WGSL of the sum of a split f32 product's partials (binding 1, as shader/matmul_geometry.h
/// lays them out) into its result (binding 2), each element's added in order of k's chunks.
std::string matmul_partials_sum_source();

class MatmulKernel {
 public:
  explicit MatmulKernel(const KernelRunner& runner);

  /// Whether run takes lhs @ rhs -> out: f32 or f16, and shader::matmul_geometry's limits.
  bool takes(const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out) const;
  using Operand = shader::ProductOperand<BufferRange>;

  /// Whether run reads an operand of dtype transposed as it is: f32 and f16.
  static bool reads_transposed(DType dtype) { return dtype == DType::F32 || dtype == DType::F16; }
  /// Records c = a @ b (takes holds; an operand read transposed where it says so); scratch: the
  /// partial results' buffer where k is split.
  void run(const Operand& a, const Operand& b, const BufferRange& c, const ir::TensorMeta& lhs,
           const ir::TensorMeta& rhs, const ir::TensorMeta& out,
           const shader::Scratch<BufferRange>& scratch);

 private:
  std::optional<shader::MatmulGeometry> geometry(const ir::TensorMeta& lhs,
                                                 const ir::TensorMeta& rhs,
                                                 const ir::TensorMeta& out) const;

  KernelRunner runner_;
  // Each source written once (a product's dispatch would otherwise write it again every call).
  // By operand layout: (lhs transposed) * 2 + (rhs transposed).
  std::array<std::string, 4> f32_, f16_;
  std::string sum_;
};

}  // namespace ember::wgpu
