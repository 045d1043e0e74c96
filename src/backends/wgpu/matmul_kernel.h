// MatmulKernel: matmul on a WebGPU device on f32 and f16 (f16 in f32, rounded once at the store,
// packed two to a word), a WGSL kernel of 64 x 64 output tiles, each invocation a 4 x 4 block in
// registers, k through workgroup memory 16 at a time, each product accumulated by fma in order
// along k (as the vulkan backend's; f32 with k split into chunks where the output tiles are too
// few to fill the device, the chunks' partials then added in order by a second kernel). The
// geometry (which products, batch offsets with broadcasts, parameter words, grid) is shared with
// vulkan (backends/shader/matmul_geometry.h).
#pragma once

#include <optional>
#include <string>

#include "backends/shader/kernel_runner.h"
#include "backends/shader/matmul_geometry.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"
#include "ir/program.h"

namespace ember::wgpu {

/// The WGSL of the kernel on dtype (F32 or F16), apart from the device for tests.
std::string matmul_source(DType dtype);
/// The WGSL of the sum of a split f32 product's partials (binding 1, as shader/matmul_geometry.h
/// lays them out) into its result (binding 2), each element's added in order of k's chunks.
std::string matmul_partials_sum_source();

class MatmulKernel {
 public:
  explicit MatmulKernel(const KernelRunner& runner)
      : runner_(runner),
        f32_(matmul_source(DType::F32)),
        f16_(matmul_source(DType::F16)),
        sum_(matmul_partials_sum_source()) {}

  /// Whether run takes lhs @ rhs -> out: f32 or f16, and shader::matmul_geometry's limits.
  bool takes(const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out) const;
  /// Records c = a @ b (takes holds); scratch: the partial results' buffer where k is split.
  void run(const BufferRange& a, const BufferRange& b, const BufferRange& c,
           const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out,
           const shader::Scratch<BufferRange>& scratch);

 private:
  std::optional<shader::MatmulGeometry> geometry(const ir::TensorMeta& lhs,
                                                 const ir::TensorMeta& rhs,
                                                 const ir::TensorMeta& out) const;

  KernelRunner runner_;
  // Each source written once (a product's dispatch would otherwise write it again every call).
  std::string f32_, f16_, sum_;
};

}  // namespace ember::wgpu
