// What the CUDA C kernels share (cuda_c.h's elementwise kernels, cuda_program.h's fused
// programs): how an element of each dtype is loaded and stored, which ops the emitter writes on
// which dtype, and an op evaluated over the CudaC target by its formula.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "codegen/cuda_c.h"
#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::codegen::cuda {

/// Whether a kernel reads and writes elements of dtype: F64, F32, F16, BF16 or Bool.
bool has_storage(DType dtype);
/// The C type of an element of dtype in memory: double, float, unsigned short (the bits of f16
/// and bf16) or unsigned char (Bool, 0 or 1). dtype has_storage.
std::string_view storage_type(DType dtype);
/// The definitions that loads and stores of dtype need before the kernel (f16, bf16), guarded so
/// that several kernels' sources concatenate.
std::string_view storage_helpers(DType dtype);
/// A new variable of m holding the element that the C lvalue element (of dtype's storage type)
/// holds: a value in m's compute type, or a mask for Bool ("element != 0").
std::string load(const CudaC& m, DType dtype, const std::string& element);
/// The C expression of value (a variable of m) as an element of dtype: rounded to nearest, ties
/// to even, for f16 and bf16; 0 or 1 for Bool.
std::string store(DType dtype, const std::string& value);

/// has_elementwise_kernel(op, dtype) (cuda_c.h), without a Cast to its own dtype.
bool writes(const ir::Op& op, DType dtype);

/// op (writes(op, dtype), or a Cast to dtype itself) on args, variables of m: its formula's
/// result. dtype is op's first tensor operand's (Where's a). scalar is the C expression of op's
/// scalar or activation parameter (kernel_parameter's value), read only by the ops that take one.
std::string evaluate(const CudaC& m, const ir::Op& op, DType dtype,
                     std::span<const std::string> args, std::string_view scalar);

/// Whether name is a C identifier.
bool is_identifier(std::string_view name);

}  // namespace ember::codegen::cuda
