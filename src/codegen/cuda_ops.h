// What the CUDA C kernels share (cuda_c.h's elementwise kernels, cuda_program.h's fused
// programs): how an element of each dtype is loaded and stored. Which ops they write is
// emitted_ops.h's, and each op's formula op_formulas.h's, shared with the other emitters.
#pragma once

#include <string>
#include <string_view>

#include "codegen/cuda_c.h"
#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::codegen::cuda {

/// The C type of an element of dtype in memory: double, float, unsigned short (the bits of f16
/// and bf16), unsigned char (Bool, 0 or 1), or the integer's own type (signed char, short, int,
/// long long and their unsigned forms). dtype has_storage.
std::string_view storage_type(DType dtype);
/// The definitions that loads and stores of dtype need before the kernel (f16, bf16), or that
/// its integer primitives and conversions call (an integer dtype: ember_ipow, ember_odd_float),
/// guarded so that several kernels' sources concatenate.
std::string_view storage_helpers(DType dtype);
/// A new variable holding the element that the C lvalue element (of dtype's storage type)
/// holds: a value in m's compute type (a float dtype), a variable of the integer's type (of
/// m.on(dtype)), or a mask for Bool ("element != 0").
std::string load(const CudaC& m, DType dtype, const std::string& element);
/// The C expression of value (a variable of m) as an element of dtype: rounded to nearest, ties
/// to even, for f16 and bf16; 0 or 1 for Bool; itself for an integer dtype (a variable of its
/// type).
std::string store(DType dtype, const std::string& value);

}  // namespace ember::codegen::cuda
