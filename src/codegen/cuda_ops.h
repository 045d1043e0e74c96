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

/// Whether a kernel reads and writes elements of dtype: every dtype (F64, F32, F16, BF16, the
/// integers, Bool); false for a value past the enumeration.
bool has_storage(DType dtype);
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

/// Whether the emitter writes op on dtype (op's first tensor operand's dtype), without a Cast to
/// its own dtype, by its formula:
///   - the float ops, predicates and activations on the float dtypes; the Bool ops on Bool;
///   - on the integer dtypes: neg, abs, sign; add, sub, mul, maximum, minimum (also with a
///     scalar on either side); div, remainder and powf with the scalar on the right only (a
///     tensor divisor or exponent stays on the host: ndarray throws for 0 and for a negative
///     exponent, which a kernel cannot); the comparisons; the comparisons with a scalar up to 32
///     bits (a 64-bit integer compares with an Int scalar exactly and with a Float one in double,
///     and the kernel does not know the scalar's kind);
///   - compare, where and mask_fill on every dtype;
///   - a Cast between any two dtypes except two distinct float dtypes.
/// has_elementwise_kernel (cuda_c.h) is its part on float and Bool operands and results.
bool writes(const ir::Op& op, DType dtype);

/// Whether a kernel takes op's scalar on dtype as a long long (kernel_integer_parameter, cuda_c.h)
/// rather than a double: a BinaryScalar or MaskFill on an integer dtype.
bool takes_integer_scalar(const ir::Op& op, DType dtype);

/// op (writes(op, dtype), or a Cast to dtype itself) on args, variables of m (or of m.on(...) for
/// integer values): its formula's result. dtype is op's first tensor operand's (Where's a). An
/// integer dtype's values are computed on m.on(dtype), whose primitives are ndarray's integer
/// arithmetic (cuda_c.h). scalar is the C expression of op's scalar or activation parameter
/// (kernel_parameter's or kernel_integer_parameter's value), read only by the ops that take one.
std::string evaluate(const CudaC& m, const ir::Op& op, DType dtype,
                     std::span<const std::string> args, std::string_view scalar);

/// Whether name is a C identifier.
bool is_identifier(std::string_view name);

}  // namespace ember::codegen::cuda
