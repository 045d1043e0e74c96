// Which elementwise ops the kernel emitters (CUDA C, GLSL) write, on which dtypes, and whether a
// fused program is made of such ops only: target-neutral, so that every emitter takes the same
// ops through the same formulas (ir/formulas.h), and the rest stays on the host.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "ember/dtype.h"
#include "ir/ops.h"
#include "ir/program.h"

namespace ember::codegen {

/// Whether a kernel reads and writes elements of dtype: every dtype (F64, F32, F16, BF16, the
/// integers, Bool); false for a value past the enumeration.
bool has_storage(DType dtype);

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
bool writes(const ir::Op& op, DType dtype);

/// The dtype a program's op is written on: its first tensor operand's (Where's a, the second of
/// args, the dtypes of its operands).
DType operand_dtype(const ir::Op& op, std::span<const DType> args);

/// Why the emitters cannot write program, or "" when they can: the float values among its inputs
/// and instruction results are of one float dtype, beside any integer dtypes and Bool; no input
/// has more than kProgramMaxRank dims; every instruction is an op the emitters write on its
/// operands' dtype (writes) or a Cast to its operand's own dtype, with the result dtype ir infers
/// for it, and with a constant where it has a scalar; it has outputs, each an instruction.
std::string program_refusal(const ir::Program& program);

/// Whether name is a C identifier.
bool is_identifier(std::string_view name);

}  // namespace ember::codegen
