// The scalars a generated kernel takes (every emitter's: CUDA C, GLSL): an op's scalar or
// activation parameter as the kernel computes with it, and a fused program's scalar arguments in
// order. Target-neutral: what value each one is, not how a language spells it.
#pragma once

#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "ember/dtype.h"
#include "ember/scalar.h"
#include "ir/ops.h"
#include "ir/program.h"

namespace ember::codegen {

/// The scalar that a kernel of op on dtype takes (an elementwise kernel's parameter or value, a
/// program kernel's scalar argument), as a double:
///   ir::Activation                   ir::parameter_of(op)
///   ir::BinaryScalar, ir::MaskFill,  op's value as a tensor of dtype holds it (ember's conversion,
///   ir::CompareScalar                detail::convert_element: rounded once to a float dtype, 0 or
///                                    1 for Bool), which is what ndarray computes and compares with
///   ir::CompareScalar on Bool        where ndarray compares 0 and 1 with the value exactly: -0.5,
///                                    0, 0.5, 1, 1.5 or NaN as the value is negative, zero, between
///                                    0 and 1, one, above 1 or NaN, which 0 and 1 compare with as
///                                    with the value, and which every float type holds exactly
///   ir::CompareScalar on an integer  the value as a double (Scalar::as_double): an integer of up
///   dtype of up to 32 bits           to 32 bits converts to double exactly, and compares with
///                                    it as ndarray compares it with the value (a Float value in
///                                    double, an Int one exactly: beyond 2^53, where its double
///                                    rounds, it lies beyond every such integer all the same)
///   any other op                     0
/// Throws InvalidArgument, naming the op and the dtype, for an op with a scalar on another dtype
/// (an integer dtype's other scalars are kernel_integer_parameter's).
double kernel_parameter(const ir::Op& op, DType dtype);

/// The scalar of op (BinaryScalar, MaskFill) on an integer dtype, as a program kernel takes it
/// (a long long): op's value as a tensor of dtype holds it (ndarray's scalar_as: a float value
/// truncated toward zero and saturated, NaN 0; an int value wrapped; a Bool 0 or 1), a U64 above
/// 2^63 - 1 by its bits. 0 for an op without a scalar. Throws InvalidArgument, naming the op and
/// the dtype, for a CompareScalar (kernel_parameter's) and a dtype that is no integer dtype.
int64_t kernel_integer_parameter(const ir::Op& op, DType dtype);

/// Whether a kernel takes op's scalar on dtype as a long long (kernel_integer_parameter)
/// rather than a double: a BinaryScalar or MaskFill on an integer dtype.
bool takes_integer_scalar(const ir::Op& op, DType dtype);

/// One scalar argument of a program kernel: a double, or a long long (an integer instruction's
/// scalar, exact: kernel_integer_parameter).
using KernelScalar = std::variant<double, int64_t>;

/// The scalar arguments of the kernel of program (has_program_kernel) for an execution with
/// constants (those that execute_fused receives): for each instruction j with a scalar, in order,
/// kernel_parameter(program.bound_op(j, constants), dtype of j's first operand) (the
/// scalar as a tensor of that dtype holds it), a double; or kernel_integer_parameter's long long
/// where the kernel takes one (takes_integer_scalar: a BinaryScalar or MaskFill on an
/// integer). Throws InvalidArgument when such an instruction has no constant, or one past
/// constants.
std::vector<KernelScalar> program_scalars(const ir::Program& program,
                                          std::span<const Scalar> constants);

}  // namespace ember::codegen
