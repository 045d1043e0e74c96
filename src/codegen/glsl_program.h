// The GLSL program emitter: one compute shader computing a whole ir::Program (the elementwise
// chain the fusion decorator hands to execute_fused, or a lone op as a one-instruction program),
// each instruction by its formula over the Glsl target (glsl.h, op_formulas.h), every input read
// once per element through strides that broadcast it, only the program's outputs stored; its loops
// are the WGSL emitter's too (shader_loops.h). The vulkan backend compiles it to SPIR-V (shaderc)
// and binds its buffers in the order below.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/glsl.h"
#include "codegen/kernel_dims.h"
#include "ember/scalar.h"
#include "ir/program.h"

namespace ember::codegen {

/// The invocations of a workgroup of the program kernels.
inline constexpr uint32_t kGlslWorkgroupSize = 256;
/// The elements an invocation of a program kernel loads together in a turn of its loop (a
/// dispatch needs n / (kGlslWorkgroupSize * kGlslElementsPerInvocation) workgroups at most).
inline constexpr uint32_t kGlslElementsPerInvocation = 4;

/// Why glsl_program_kernel cannot write program for a device of features, or "" when it can:
/// program_refusal's reasons (emitted_ops.h); a dtype the device has no storage or arithmetic for
/// (f64 without float64, i64 and u64 without int64, Bool, i8, u8 without 8-bit storage, f16, i16,
/// u16 without 16-bit storage, bf16 always); an op whose formula needs a primitive that
/// glsl_primitives lacks on the program's compute type (expm1, log1p, pow and fmod of floats;
/// every transcendental function on f64); an integer compared with a scalar without float64 (it
/// compares in double).
std::string glsl_program_refusal(const ir::Program& program, const GlslFeatures& features);

/// The GLSL source of the kernel of program (glsl_program_refusal empty, else InvalidArgument
/// naming why): a compute shader of kGlslWorkgroupSize invocations a workgroup, elements i in
/// [0, n) in a loop of kGlslElementsPerInvocation elements a turn, striding by the whole dispatch
/// (any number of workgroups).
/// Its storage buffers, set 0:
///   binding 0             the parameter block, uint words (glsl_program_parameters)
///   bindings 1 to k       program.inputs, each of its dtype's storage type (f16 as uint16_t bits,
///                         Bool as uint8_t 0 or 1)
///   bindings k+1 to k+m   program.outputs in order, contiguous, of the output's shape
/// Element i of the output reads input k at its offset plus the dot product of i's coordinates in
/// sizes with its strides (merged_dims). Values are computed as CUDA C's program kernels compute
/// them (f16 in float, rounded to f16 after each instruction), with GLSL's precision (glsl.h).
std::string glsl_program_kernel(const ir::Program& program, const GlslFeatures& features);

/// Whether program has a flat kernel (glsl_flat_program_kernel, wgsl_flat_program_kernel): every
/// input and output of a 4-byte dtype (f32, i32, u32), which a vector of four moves 16 bytes at a
/// time, as a memory-bound kernel needs on a GPU (one 4-byte element at a time, an H100's program
/// kernels ran at 75% to 86% of its copy rate).
bool has_flat_program_kernel(const ir::Program& program);

/// Whether the flat kernel runs program over dims (merged_dims', as glsl_program_parameters takes
/// them): has_flat_program_kernel, at most one dim, and each input contiguous (stride 1) from an
/// offset that is a multiple of 4 elements, or one element broadcast (stride 0, any offset). The
/// caller also needs every tensor's binding to start at a multiple of 16 bytes.
bool flat_program_runs(const ir::Program& program, const MergedDims& dims);

/// The GLSL source of program's flat kernel (glsl_program_refusal empty and
/// has_flat_program_kernel, else InvalidArgument): glsl_program_kernel's bindings and parameter
/// block, its buffers arrays of vec4, ivec4 or uvec4, for the executions flat_program_runs takes.
/// Invocation j of the dispatch computes elements 4j to 4j + 3 (vector j of each output and of
/// each contiguous input), then those the dispatch's invocations' count of vectors on, any number
/// of workgroups; the last vector's elements past n are neither loaded nor stored. The values are
/// glsl_program_kernel's, bit for bit: each lane runs the same statements.
std::string glsl_flat_program_kernel(const ir::Program& program, const GlslFeatures& features);

/// The parameter block of an execution of program's kernel over dims (merged_dims of the output
/// and the inputs' shapes, or any strides and offsets that stay inside the inputs; n elements,
/// n < 2^31) with constants (execute_fused's): n, the rank, the sizes (8 words), each input's
/// strides (8 words each, two's complement), each input's offset, then two words per scalar of
/// program_scalars, as the kernel declares it (a float's bits in the first word, a double's or a
/// 64-bit integer's in both, low first; an integer of up to 32 bits in the first).
std::vector<uint32_t> glsl_program_parameters(const ir::Program& program,
                                              const GlslFeatures& features, const MergedDims& dims,
                                              uint64_t n, std::span<const Scalar> constants);

/// The GLSL function ember_f16_bits(f32) -> the f16 bits of f rounded to nearest, ties to even
/// (the language's own packing leaves the rounding to the implementation): for kernels of their
/// own that store f16 (the shader backends' matmul).
std::string_view glsl_f16_bits_helper();

}  // namespace ember::codegen
