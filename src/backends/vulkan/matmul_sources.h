// The GLSL of the vulkan backend's matmul kernels, apart from the device so that tests compile
// them without one: the tiled kernel of every float dtype the device computes, and the f16
// kernel on cooperative matrices (GL_NV_cooperative_matrix) for drivers that offer them. Both
// read the parameter words of backends/shader/matmul_geometry.h.
#pragma once

#include <cstdint>
#include <string>

#include "backends/vulkan/vulkan_context.h"
#include "ember/dtype.h"

namespace ember::vulkan {

/// The tiled kernel on dtype (F32, F64 or F16): 256 invocations a workgroup, each a 4 x 4 block
/// of the workgroup's 64 x 64 output tile in registers, k staged through shared memory 16 at a
/// time, every product accumulated by fma in order along k (f16 in f32, rounded once at the
/// store to nearest even, as ndarray's f16 matmul). lhs_transposed, rhs_transposed: that operand's
/// buffer holds its transpose ([..., k, m], [..., n, k]), read as it is.
std::string tiled_matmul_source(DType dtype, bool lhs_transposed = false,
                                bool rhs_transposed = false);

/// The sum of a split product's partial results (binding 1, as shader/matmul_geometry.h lays them
/// out) into its result (binding 2), each element's partials added in order of k's chunks, on
/// F32 or F64 (no f16 product is split).
std::string matmul_partials_sum_source(DType dtype);

/// The f16 kernel on cooperative matrices of shape, laid out as shape.layout says (by default 8
/// subgroups a workgroup in 2 x 4, each 4 x 2 cooperative tiles of the workgroup's output tile,
/// 128 x 128 for 16 x 16 matrices, k staged through two shared buffers 2 shape.k at a time):
/// zero-padded at the edges, the next step read into registers during this one's products, f32
/// accumulators rounded once at the store to nearest even. aligned: the operands are read 8
/// elements (16 bytes) at a time, for products whose k and n are multiples of 8
/// (cooperative_aligned).
std::string cooperative_matmul_source(const CooperativeShape& shape, bool aligned);

/// The rows and columns of the output tile of cooperative_matmul_source(shape), its invocations
/// and the shared memory it declares.
uint64_t cooperative_tile_rows(const CooperativeShape& shape);
uint64_t cooperative_tile_cols(const CooperativeShape& shape);
uint64_t cooperative_workgroup(const CooperativeShape& shape);
uint64_t cooperative_shared_bytes(const CooperativeShape& shape);

/// Whether cooperative_matmul_source(shape, true) takes a product of this k and n.
inline bool cooperative_aligned(uint64_t k, uint64_t n) {
  return k % 8 == 0 && n % 8 == 0;
}

}  // namespace ember::vulkan
