// The WGSL program emitter: one compute shader computing a whole ir::Program (a fused elementwise
// chain, or a lone op as a one-instruction program), each instruction by its formula over the
// Wgsl target (wgsl.h, op_formulas.h), as the GLSL program emitter writes it (glsl_program.h): the
// same loops (shader_loops.h), strides, parameter block (glsl_program_parameters) and refusals,
// spelled in WGSL. The wgpu backend hands it to wgpu-native and binds its buffers in the order
// below.
#pragma once

#include <string>
#include <string_view>

#include "ir/program.h"

namespace ember::codegen {

/// The invocations of a workgroup of the WGSL program kernels.
inline constexpr uint32_t kWgslWorkgroupSize = 256;
/// The elements an invocation of a program kernel loads together in a turn of its loop (a
/// dispatch needs n / (kWgslWorkgroupSize * kWgslElementsPerInvocation) workgroups at most).
inline constexpr uint32_t kWgslElementsPerInvocation = 4;

/// Why wgsl_program_kernel cannot write program, or "" when it can: glsl_program_refusal's
/// reasons on a device with 8- and 16-bit storage but neither doubles nor 64-bit integers (WGSL
/// has none: f64, i64 and u64 run on the host), so bf16, an integer compared with a scalar (in
/// double), expm1, log1p, and pow and fmod of floats are refused too.
std::string wgsl_program_refusal(const ir::Program& program);

/// The WGSL source of program's kernel (wgsl_program_refusal empty, else InvalidArgument): entry
/// point main, kWgslWorkgroupSize invocations a workgroup, elements i in [0, n) in a loop of
/// kWgslElementsPerInvocation elements a turn, striding by the whole dispatch. Its storage buffers,
/// group 0:
///   binding 0             the parameter block, array<u32> (glsl_program_parameters' words)
///   bindings 1 to k       program.inputs: array<f32>, array<i32>, array<u32> for the 4-byte
///                         dtypes; the others' elements packed in array<u32> words, lowest first
///   bindings k+1 to k+m   program.outputs in order, contiguous: array<f32|i32|u32>, or, for a
///                         dtype of 1 or 2 bytes, array<atomic<u32>> whose words the caller has
///                         zeroed (each element is or-ed into its word)
/// Values are computed as the GLSL kernels compute them (f16 in f32, rounded to f16 after each
/// instruction by ember_f16_bits, round to nearest even).
std::string wgsl_program_kernel(const ir::Program& program);

/// The WGSL source of program's flat kernel (wgsl_program_refusal empty and
/// has_flat_program_kernel, glsl_program.h, else InvalidArgument): wgsl_program_kernel's bindings
/// and parameter block, its buffers array<vec4<f32>>, array<vec4<i32>> or array<vec4<u32>>, for
/// the executions flat_program_runs takes, as glsl_flat_program_kernel computes them. Each
/// tensor's binding must cover the whole vectors its elements lie in (its bytes rounded up to 16):
/// the last, partial vector is read and written lane by lane, but the array's length counts whole
/// vectors, and an access past it is not defined (the kernels are trusted modules, unclamped).
std::string wgsl_flat_program_kernel(const ir::Program& program);

/// The WGSL function ember_f16_bits(f32) -> the f16 bits of f rounded to nearest, ties to even
/// (the language's own packing leaves the rounding to the implementation): for kernels of their
/// own that store f16 (the shader backends' matmul).
std::string_view wgsl_f16_bits_helper();

/// WGSL's compensated f32 sum, for kernels that add long runs of f32 (WGSL has no f64):
/// `var total = Sum(0.0f, 0.0f); total = add(total, v); ... sum_value(total)` is Neumaier's sum.
/// It declares `var<private> opaque_zero: u32`, which the kernel must set, before its first add,
/// to a word that is 0 but that the compiler cannot know is (a count below 2^31, shifted right 31).
std::string_view wgsl_compensated_sum_helper();

}  // namespace ember::codegen
