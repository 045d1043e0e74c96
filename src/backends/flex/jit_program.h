// Fused f32 programs (src/ir/program.h) compiled to x86-64 machine code with Xbyak, for AVX2
// with FMA or for AVX-512: the whole program runs in vector registers, one load per input and
// one store per output for each vector of elements, where the tile interpreter (fused_tile.h)
// loads and stores every instruction's tile. The unary ops and the activations are their formulas
// (ir/formulas.h) on the compiler's primitives, which are the instructions simd.h's loops use, in
// the same order, so both give the same bits (NaN payloads aside).
//
// Covered: programs whose values are F32, Bool (held as lanes of all ones or zeros) or one of bf16
// and f16 (held as the f32 they widen to, each result rounded to its dtype, to nearest even, as
// the tile loops round it; a NaN result is left to the caller, whose Half and BFloat16 keep
// payloads the hardware's conversions do not), and whose
// instructions are all among Add, Sub, Mul, Div, Maximum, Minimum (also with a scalar operand),
// Neg, Abs, Sign, Sqrt, Recip, Tanh, Exp, Log, Floor, Ceil, Round, every activation (a Celu of
// alpha 0 aside: simd.h's loops leave it to the reference), comparisons of F32 values (also with a
// scalar), Where, MaskFill of F32, Cast between F32 and Bool, and Bool And, Or, Xor and Not.
// fused.cpp runs every other program, and the elements of a tile past its last whole block, through
// the tile interpreter. EMBER_JIT=0 turns the compiler off, for comparison.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "ir/program.h"

namespace ember::flex {

/// The instruction sets the compiler targets.
enum class JitIsa : uint8_t { Avx2, Avx512 };

class JitProgram {
 public:
  /// This CPU's best covered instruction set; none without AVX2 and FMA, off x86-64, or when
  /// the build has no Xbyak.
  static std::optional<JitIsa> native_isa();
  /// program compiled for isa (which the caller has checked the CPU runs), or null when the
  /// program holds what the compiler does not cover or keeps more values alive than isa has
  /// registers.
  static std::unique_ptr<const JitProgram> compile(const ir::Program& program, JitIsa isa);

  JitProgram(const JitProgram&) = delete;
  JitProgram& operator=(const JitProgram&) = delete;
  ~JitProgram();

  /// f32 elements per pass of the code's loop: one or two vectors.
  int64_t block() const { return block_; }
  /// outputs[k][i] = program output k at element i, for i < n (a positive multiple of block()),
  /// from inputs[k][i] (contiguous arrays of each input's dtype, one per program input). scalars[j]
  /// is instruction j's scalar operand, or its activation's parameter (activation_parameter). With
  /// streaming, the f32 outputs are written with streaming stores (past the caches;
  /// hwy::FlushStream() before another thread reads them), and each must be 64-byte aligned.
  /// Returns false when some lane was outside the range where the code computes an op as simd.h's
  /// loops do (exp beyond 88, of -inf or of NaN, which they hand to std::exp; log of anything but a
  /// normal positive value, which they hand to std::log; an activation of an infinity or NaN, which
  /// they hand to the reference kernel; GELU's tanh form beyond +-1e12): the outputs are then to be
  /// computed again another way.
  [[nodiscard]] bool run(const void* const* inputs, void* const* outputs, const float* scalars,
                         int64_t n, bool streaming = false) const {
    uint8_t out_of_range = 0;
    entries_[streaming](inputs, outputs, scalars, n, &out_of_range);
    return out_of_range == 0;
  }

 private:
  struct Code;  // the generated code, owned (Xbyak stays out of this header)
  using Entry = void (*)(const void* const*, void* const*, const float*, int64_t, uint8_t*);
  using Entries = std::array<Entry, 2>;  ///< plain stores, streaming stores
  JitProgram(std::unique_ptr<Code> code, Entries entries, int64_t block);

  std::unique_ptr<Code> code_;
  Entries entries_;
  int64_t block_;
};

/// The parameter of an activation that reaches the code through JitProgram::run's scalars:
/// Softplus's beta, the others' alpha (unused by those without one).
float activation_parameter(const ir::Activation& activation);

/// program compiled for this CPU, compiled on the first call and kept with the program; null
/// when EMBER_JIT=0, when native_isa() is none, when simd.h's loops run without FMA (their
/// values would then differ from the compiled code's), or when compile() does not cover program.
const JitProgram* compiled_program(const ir::Program& program);

}  // namespace ember::flex
