// Lone elementwise ops as the programs a shader backend runs them as (ir::lone_op_program), for
// the emitters' tests (tests/vulkan/glsl_program_test.cpp, tests/wgpu/wgsl_program_test.cpp), so
// that both languages' kernels are written for the same ops.
#pragma once

#include <vector>

#include "ember/dtype.h"
#include "ir/ops.h"
#include "ir/program.h"

namespace ember::test {

/// op alone, on inputs of dtypes and shape {4}. InvalidArgument where ir does not take op on them.
ir::Program lone_program(const ir::Op& op, std::vector<DType> dtypes);

/// Every lone op that ir takes on inputs of each of dtypes (and Bool where the op takes a mask):
/// the unary, binary, comparison (with a tensor and with a scalar) and activation ops, a cast to
/// every dtype, where, mask_fill, and a multiplication by an integer scalar.
std::vector<ir::Program> lone_programs(const std::vector<DType>& dtypes);

/// lone_programs on f32, i32 and u32 whose tensors are all of 4 bytes: the flat kernels'
/// (codegen::has_flat_program_kernel).
std::vector<ir::Program> flat_lone_programs();

}  // namespace ember::test
