// The fused-program emitter: one CUDA C kernel computing a whole ir::Program (ir/program.h), the
// elementwise chain that the fusion decorator hands to a backend's execute_fused, each instruction
// by its formula over the CudaC target (cuda_c.h): every input read once per element, through
// strides that broadcast it, and only the program's outputs stored. The source compiles as
// cuda_c.h's kernels do (NVRTC, no include path, never --use_fast_math).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "codegen/kernel_dims.h"
#include "codegen/kernel_scalars.h"
#include "ember/scalar.h"
#include "ember/shape.h"
#include "ir/program.h"

namespace ember::codegen {

/// The guarded CUDA C definition of `ember_dims` (KernelDims's layout) and of EMBER_DIMS_PARAM,
/// the spelling of a kernel parameter of that type. The parameter is __grid_constant__: a kernel
/// reads its entries at run-time indices (the dim loops), and a plain by-value struct read that way
/// is first copied to every thread's stack, 64 bytes of local memory a thread per parameter, which
/// made the strided copies and programs about ten times slower than the memory allows.
inline constexpr std::string_view kCudaDimsDefinition = R"(#ifndef EMBER_DIMS
#define EMBER_DIMS
struct ember_dims {
  long long d[8];
};
#define EMBER_DIMS_PARAM const __grid_constant__ ember_dims
#endif
)";
static_assert(kProgramMaxRank == 8, "kCudaDimsDefinition spells the rank out");

/// Whether program_kernel writes program: the float values among its inputs and instruction
/// results are of one float dtype (F64, F32, F16 or BF16), beside any integer dtypes and Bool;
/// no input has more than kProgramMaxRank dims; and every instruction is an op that the emitter
/// writes on its operands' dtype (writes, emitted_ops.h: a Unary, Binary, BinaryScalar,
/// Compare, CompareScalar, Where, MaskFill, Cast, or Activation, on the float dtypes, Bool and
/// the integer dtypes, less what stays on the host there: an integer division, remainder or
/// power by a tensor, a 64-bit integer compared with a scalar, a cast between two float dtypes)
/// or a Cast to its operand's own dtype, with the result dtype ir infers for it, and with a
/// constant where it has a scalar. Integer values are computed as ndarray computes them (wrapping
/// arithmetic, truncating division, casts truncating and saturating floats, NaN 0).
bool has_program_kernel(const ir::Program& program);

/// The CUDA C source of one kernel, named kernel_name (a C identifier), computing program over
/// its output's shape: one thread an element in a grid-stride loop over [0, n), any grid and
/// block. Its parameters, in order (k inputs, m outputs):
///   const T0* in0, ..., const Tk-1* ink-1   program.inputs, each of its dtype's storage type
///                                            (cuda_c.h: double, float, unsigned short for f16
///                                            and bf16, unsigned char 0 / 1 for Bool)
///   O0* out0, ..., Om-1* outm-1             program.outputs in order, each of its instruction's
///                                            dtype: contiguous, row-major, of the output's shape;
///                                            every pointer is __restrict__: no output may
///                                            overlap an input or another output
///   long long n                              the output's element count
///   int rank                                 the output's rank, at most kProgramMaxRank
///   ember_dims sizes                         the output's sizes (kernel_sizes)
///   ember_dims strides0, ..., stridesk-1     per input, its element strides along the output's
///                                            dims: broadcast_strides for a contiguous input, 0
///                                            along every dim it repeats along; any view's strides
///   double scalar<j>, ...                    one per instruction j with a scalar (BinaryScalar,
///                                            CompareScalar, MaskFill), in instruction order:
///                                            program_scalars; a long long where the
///                                            instruction's operand is an integer (but for a
///                                            CompareScalar: its scalar is a double)
/// ember_dims is KernelDims, passed by value; the source defines it (guarded, so that several
/// kernels' sources concatenate into one program). Element i of the output reads input k at
/// sum over d < rank of c_d * strides_k.d[d], with c the coordinates of i in sizes: any dims
/// whose strides allow it may be merged (a contiguous program of any shape runs as rank 1,
/// sizes {n}, a full input's strides {1}, a one-element input's {0}), which saves the kernel its
/// divisions. A program's float values are computed in double for F64 and in float otherwise;
/// each F16 or BF16 instruction result is rounded to its dtype, as the same ops run one by one
/// would round it. An activation's parameter is written into the source (the program holds it).
///
/// The source holds a second kernel, kernel_name + "_flat", for the common case of a program
/// whose inputs are each contiguous or one element: four elements a thread, read and written as
/// vectors of four (16 bytes for f32), no coordinates. Its parameters are the same pointers, then
///   long long n                              the output's element count
///   unsigned int broadcast                   bit k set: input k is one element (read at [0]),
///                                            else contiguous over the output's n elements
///   double scalar<j>, ...                    as above
/// and every pointer that is read or written as a vector (a contiguous input, an output) must be
/// aligned to four of its elements; at most 32 inputs. Any grid and block.
/// Throws InvalidArgument, naming the instruction, its op and dtype, where
/// !has_program_kernel(program), and when kernel_name is not an identifier.
std::string program_kernel(const ir::Program& program, std::string_view kernel_name);

}  // namespace ember::codegen
