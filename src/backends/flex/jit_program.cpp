#include "backends/flex/jit_program.h"

#include <cstdlib>
#include <string_view>
#include <type_traits>
#include <variant>

#include "backends/flex/float_dispatch.h"
#include "backends/flex/simd.h"

#if defined(EMBER_WITH_XBYAK)
#include <xbyak/xbyak.h>
#include <xbyak/xbyak_util.h>

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "backends/flex/highway_exp.h"
#include "backends/flex/highway_log.h"
#include "backends/flex/rational_tanh.h"
#include "ir/formulas.h"
#endif

namespace ember::flex {

#if defined(EMBER_WITH_XBYAK)

struct JitProgram::Code {
  std::unique_ptr<Xbyak::CodeGenerator> generator;
};

namespace {

/// The constants the generated code reads from memory, one 64-byte row each: a whole vector of
/// either instruction set.
enum Constant : uint8_t {
  kSignMask,
  kAbsMask,
  kOne,
  kMinusOne,
  kTanhSaturates,
  kMinusTanhSaturates,
  kTanhTiny,
  kTanhP,               // the 7 coefficients of rational_tanh::kP
  kTanhQ = kTanhP + 7,  // the 4 of kQ
  kHalf = kTanhQ + 4,
  kExpValidMin,
  kExpValidMax,
  kExpLowerBound,
  kOneOverLn2,
  kLn2Part0,
  kLn2Part1,
  kExpPoly,                      // highway_exp::kPoly from k5 down to k0, in pairs for linear()
  kExponentBias = kExpPoly + 6,  // the int32 127
  kFloatMax,
  kAllOnes,  // a Bool lane's true
  kLogValidMin,
  kLn2Hi,
  kLn2Lo,
  kLogExponentShift,
  kSqrtHalfBits,
  kMantissaMask,
  kLogPoly,  // highway_log::kPoly, k0 to k3
  kLowest = kLogPoly + 4,
  kLn2Over2,
  kBFloat16Lsb,   // the lowest bit a bf16 keeps of an f32
  kBFloat16Half,  // half a bf16 ulp less one: rounds ties to even with the kept bit
  kBFloat16Kept,  // the f32 bits a bf16 keeps
  kConstantCount,
};

struct alignas(64) ConstantRow {
  std::array<uint32_t, 16> bits;
};

ConstantRow splat_bits(uint32_t bits) {
  ConstantRow row;
  row.bits.fill(bits);
  return row;
}
ConstantRow splat(float value) {
  return splat_bits(std::bit_cast<uint32_t>(value));
}

const std::array<ConstantRow, kConstantCount>& constant_table() {
  static const std::array<ConstantRow, kConstantCount> table = [] {
    using namespace rational_tanh;
    std::array<ConstantRow, kConstantCount> rows;
    rows[kSignMask] = splat_bits(0x80000000u);
    rows[kAbsMask] = splat_bits(0x7fffffffu);
    rows[kOne] = splat(1.0f);
    rows[kMinusOne] = splat(-1.0f);
    rows[kTanhSaturates] = splat(kSaturates);
    rows[kMinusTanhSaturates] = splat(-kSaturates);
    rows[kTanhTiny] = splat(kTiny);
    for (int i = 0; i < 7; ++i)
      rows[kTanhP + i] = splat(kP[i]);
    for (int i = 0; i < 4; ++i)
      rows[kTanhQ + i] = splat(kQ[i]);
    rows[kHalf] = splat(0.5f);
    rows[kExpValidMin] = splat(highway_exp::kValidMin);
    rows[kExpValidMax] = splat(highway_exp::kValidMax);
    rows[kExpLowerBound] = splat(highway_exp::kLowerBound);
    rows[kOneOverLn2] = splat(highway_exp::kOneOverLn2);
    rows[kLn2Part0] = splat(highway_exp::kLn2Part0);
    rows[kLn2Part1] = splat(highway_exp::kLn2Part1);
    for (int i = 0; i < 6; ++i)
      rows[kExpPoly + i] = splat(highway_exp::kPoly[5 - i]);
    rows[kExponentBias] = splat_bits(127);
    rows[kFloatMax] = splat(std::numeric_limits<float>::max());
    rows[kAllOnes] = splat_bits(0xffffffffu);
    rows[kLogValidMin] = splat(highway_log::kValidMin);
    rows[kLn2Hi] = splat(highway_log::kLn2Hi);
    rows[kLn2Lo] = splat(highway_log::kLn2Lo);
    rows[kLogExponentShift] = splat_bits(highway_log::kExponentShift);
    rows[kSqrtHalfBits] = splat_bits(highway_log::kSqrtHalfBits);
    rows[kMantissaMask] = splat_bits(highway_log::kMantissaMask);
    for (int i = 0; i < 4; ++i)
      rows[kLogPoly + i] = splat(highway_log::kPoly[i]);
    rows[kLowest] = splat(std::numeric_limits<float>::lowest());
    rows[kLn2Over2] = splat(highway_exp::kLn2Over2);
    rows[kBFloat16Lsb] = splat_bits(1);
    rows[kBFloat16Half] = splat_bits(0x7fffu);
    rows[kBFloat16Kept] = splat_bits(0xffff0000u);
    return rows;
  }();
  return table;
}

/// The rows of a program's constant table: constant_table(), with room for the formulas' constants.
std::vector<ConstantRow> constant_rows() {
  constexpr std::size_t kFormulaConstants = 64;
  std::vector<ConstantRow> rows;
  rows.reserve(kConstantCount + kFormulaConstants);
  rows.assign(constant_table().begin(), constant_table().end());
  return rows;
}

// Note: the switches over ops below list every enumerator and have no default, so that a new op
// does not compile until it says whether the compiler covers it (and the generator how).

/// The primitives the compiler has code for (Generator::Math), and those of them that flag the
/// lanes they cannot compute as the Highway loops do.
const formula::Primitives& compiled_primitives() {
  static const formula::Primitives set = [] {
    using P = formula::Primitive;
    return formula::Primitives().set() &
           ~formula::primitives({P::sin, P::cos, P::tan, P::erf, P::pow, P::fmod});
  }();
  return set;
}
const formula::Primitives& flagging_primitives() {
  using P = formula::Primitive;
  static const formula::Primitives set = formula::primitives({P::exp, P::expm1, P::log, P::log1p});
  return set;
}

/// The primitives the formula of op uses (none for an op that is no formula).
formula::Primitives primitives_of(const ir::Op& op) {
  if (const auto* unary = std::get_if<ir::Unary>(&op)) {
    return formula::primitives_of(unary->op);
  } else if (const auto* activation = std::get_if<ir::Activation>(&op)) {
    return formula::primitives_of(activation->op);
  }
  return {};
}

/// Whether the compiler covers the binary op (And, Or, Xor: of Bool values).
bool covered(ir::BinaryOp op) {
  switch (op) {
    case ir::BinaryOp::Add:
    case ir::BinaryOp::Sub:
    case ir::BinaryOp::Mul:
    case ir::BinaryOp::Div:
    case ir::BinaryOp::Maximum:
    case ir::BinaryOp::Minimum:
    case ir::BinaryOp::And:
    case ir::BinaryOp::Or:
    case ir::BinaryOp::Xor:
      return true;
    case ir::BinaryOp::Rem:
    case ir::BinaryOp::Pow:
      return false;
  }
  return false;  // not an enumerator
}

bool is_logical(ir::BinaryOp op) {
  return op == ir::BinaryOp::And || op == ir::BinaryOp::Or || op == ir::BinaryOp::Xor;
}

/// Whether the compiler covers op with arguments and result of these dtypes (F32 or Bool).
bool covered(const ir::Op& op, std::span<const DType> args, DType result) {
  const auto all = [&](DType dtype) {
    return std::all_of(args.begin(), args.end(), [&](DType arg) { return arg == dtype; });
  };
  const bool f32 = all(DType::F32) && result == DType::F32;
  return std::visit(
      [&](const auto& o) {
        using Op = std::decay_t<decltype(o)>;
        // A float op is covered where its formula uses only primitives the compiler has.
        const auto compiled = [&] { return (primitives_of(op) & ~compiled_primitives()).none(); };
        if constexpr (std::is_same_v<Op, ir::Unary>) {
          if (o.op == ir::UnaryOp::Not) return all(DType::Bool) && result == DType::Bool;
          if (!formula::is_float_unary(o.op))  // IsNan, IsInf
            return all(DType::F32) && result == DType::Bool && compiled();
          return f32 && compiled();
        } else if constexpr (std::is_same_v<Op, ir::Activation>) {
          return f32 && compiled();
        } else if constexpr (std::is_same_v<Op, ir::Binary>) {
          if (is_logical(o.op)) return all(DType::Bool) && result == DType::Bool;
          return f32 && covered(o.op);
        } else if constexpr (std::is_same_v<Op, ir::BinaryScalar>) {
          if (is_logical(o.op)) return all(DType::Bool) && result == DType::Bool;
          return f32 && covered(o.op);
        } else if constexpr (std::is_same_v<Op, ir::Compare> ||
                             std::is_same_v<Op, ir::CompareScalar>) {
          return all(DType::F32) && result == DType::Bool;
        } else if constexpr (std::is_same_v<Op, ir::Where>) {
          return args[0] == DType::Bool && args[1] == result && args[2] == result;
        } else if constexpr (std::is_same_v<Op, ir::MaskFill>) {
          return args[0] == DType::F32 && args[1] == DType::Bool && result == DType::F32;
        } else if constexpr (std::is_same_v<Op, ir::Cast>) {
          return true;  // F32 and Bool, either way
        } else {
          return false;
        }
      },
      op);
}

/// Whether the program's code checks the range of some lanes: whether a formula it computes uses
/// a primitive that flags lanes, or it rounds a result to bf16 or f16 (which flags NaN lanes).
bool checks_range(const ir::Program& program) {
  return std::any_of(program.instructions.begin(), program.instructions.end(),
                     [](const ir::Instruction& instruction) {
                       return is_narrow_float(instruction.dtype) ||
                              (primitives_of(instruction.op) & flagging_primitives()).any();
                     });
}

/// The dtype a value of dtype is held in registers as: a bf16 or f16 value as the f32 it widens
/// to (rounded to its dtype after each instruction, as fused.cpp's tile loops round it).
DType held_as(DType dtype) {
  return is_narrow_float(dtype) ? DType::F32 : dtype;
}

/// Whether every value of the program is F32, Bool, or of one narrow float dtype.
bool covered_dtypes(const ir::Program& program) {
  std::optional<DType> narrow;
  const auto admits = [&](DType dtype) {
    if (!is_narrow_float(dtype)) return dtype == DType::F32 || dtype == DType::Bool;
    if (narrow && *narrow != dtype) return false;
    narrow = dtype;
    return true;
  };
  return std::all_of(program.inputs.begin(), program.inputs.end(),
                     [&](const ir::ProgramInput& input) { return admits(input.dtype); }) &&
         std::all_of(program.instructions.begin(), program.instructions.end(),
                     [&](const ir::Instruction& instruction) { return admits(instruction.dtype); });
}

bool covered(const ir::Program& program) {
  if (!covered_dtypes(program)) return false;
  std::vector<DType> args;
  for (const ir::Instruction& instruction : program.instructions) {
    args.clear();
    for (const ir::ProgramRef arg : instruction.args)
      args.push_back(held_as(program.dtype_of(arg)));
    if (!covered(instruction.op, args, held_as(instruction.dtype))) return false;
  }
  return true;
}

/// Whether the CPU converts f32 to bf16 in one instruction (AVX512_BF16's vcvtneps2bf16).
bool has_avx512_bf16() {
  static const bool has = Xbyak::util::Cpu().has(Xbyak::util::Cpu::tAVX512_BF16);
  return has;
}

/// Thrown while generating when the values alive at once need more registers than there are.
struct OutOfRegisters {};
/// Thrown while generating an op that covered() refused: not reached, but it makes the
/// generator's switches total without a default.
struct NotCovered {};

// vcmpps predicates.
constexpr uint8_t kEqual = 0;             // EQ_OQ: a == b, neither NaN
constexpr uint8_t kUnordered = 3;         // either is NaN
constexpr uint8_t kNotEqual = 4;          // NEQ_UQ: a != b, or either is NaN
constexpr uint8_t kLess = 17;             // LT_OQ: a < b, neither NaN
constexpr uint8_t kLessEqual = 18;        // LE_OQ
constexpr uint8_t kGreaterEqual = 29;     // GE_OQ
constexpr uint8_t kGreater = 30;          // GT_OQ
constexpr uint8_t kNotLess = 21;          // NLT_UQ: a >= b, or either is NaN
constexpr uint8_t kNotGreaterEqual = 25;  // NGE_UQ: a < b, or either is NaN
constexpr uint8_t kNotLessEqual = 22;     // NLE_UQ: a > b, or either is NaN
/// Not a vcmpps predicate: a Comparison whose lanes are computed already (a Bool value).
constexpr uint8_t kLanes = 0xff;

/// The code of one program. Each pass of its loop computes a block of `unroll` vectors: every
/// instruction, in order, for each vector of the block before the next instruction, so that the
/// long dependency chains of the vectors (tanh's) overlap. Each value holds one register per
/// vector from its first use (inputs: loaded) to its last; outputs are stored as computed.
///
/// Calling convention (System V): rdi the input pointers, rsi the output pointers, rdx the
/// scalars, rcx the element count, r8 the byte that tells whether a lane left an op's range. In
/// the loop r10 is the byte offset of the block in F32 arrays, r9 its element offset (the byte
/// offset in Bool arrays), r11 the constant table, rax a scratch pointer; the lanes out of range
/// gather in k5 (AVX-512) or in a vector register (AVX2). A Bool value is held as lanes of all
/// ones (true) or zeros.
class Generator : public Xbyak::CodeGenerator {
 public:
  static constexpr int kMaxUnroll = 2;

  Generator(const ir::Program& program, JitIsa isa, int unroll)
      : Xbyak::CodeGenerator(code_bytes(program, unroll), Xbyak::DontSetProtectRWE),
        program_(program),
        isa_(isa),
        unroll_(unroll),
        free_(isa == JitIsa::Avx512 ? 0xffffffffu : 0xffffu),
        registers_of_(program.inputs.size() + program.instructions.size()),
        last_use_(last_uses(program)),
        checks_range_(checks_range(program)),
        bf16_instructions_(isa == JitIsa::Avx512 && has_avx512_bf16()) {
    generate();
    ready();
    setProtectModeRE();  // writable while generated, executable (and no longer writable) now
  }

  /// f32 elements per pass of the loop.
  int64_t block() const { return unroll_ * vector_bytes() / static_cast<int64_t>(sizeof(float)); }
  /// The function at entry(false) stores with plain stores, the one at entry(true) with
  /// streaming stores.
  const uint8_t* entry(bool streaming) const { return getCode() + entry_offset_[streaming]; }

 private:
  using Reg = int;  // a vector register's number
  /// A value's registers, one per vector of the block (the first unroll_ are used).
  using Regs = std::array<Reg, kMaxUnroll>;
  static constexpr int64_t kNever = -1;

  /// Room for the longest code per instruction (mish: about 150 instructions of up to 10 bytes
  /// per vector).
  static std::size_t code_bytes(const ir::Program& program, int unroll) {
    const std::size_t items =
        program.inputs.size() + program.instructions.size() + program.outputs.size();
    return 4096 + 2048 * static_cast<std::size_t>(unroll) * items;
  }

  /// Per value (inputs first, then instructions): the last instruction reading it, or kNever.
  static std::vector<int64_t> last_uses(const ir::Program& program) {
    std::vector<int64_t> last(program.inputs.size() + program.instructions.size(), kNever);
    for (std::size_t i = 0; i < program.instructions.size(); ++i) {
      for (const ir::ProgramRef arg : program.instructions[i].args)
        last[value_of(program, arg)] = static_cast<int64_t>(i);
    }
    return last;
  }
  static std::size_t value_of(const ir::Program& program, ir::ProgramRef ref) {
    return ref.kind == ir::ProgramRef::Kind::Input ? ref.index : program.inputs.size() + ref.index;
  }

  int vector_bytes() const { return isa_ == JitIsa::Avx512 ? 64 : 32; }
  int lanes() const { return vector_bytes() / static_cast<int>(sizeof(float)); }
  Xbyak::Xmm vec(Reg r) const {
    return isa_ == JitIsa::Avx512 ? Xbyak::Xmm(Xbyak::Zmm(r)) : Xbyak::Xmm(Xbyak::Ymm(r));
  }
  Xbyak::Address constant(int row) const {
    return ptr[r11 + row * static_cast<int>(sizeof(ConstantRow))];
  }
  /// f(u) for each vector u of the block.
  template <typename F>
  void each(const F& f) {
    for (int u = 0; u < unroll_; ++u)
      f(u);
  }

  Reg allocate_one() {
    if (free_ == 0) throw OutOfRegisters{};
    const Reg r = std::countr_zero(free_);
    free_ &= ~(1u << r);
    return r;
  }
  Regs allocate() {
    Regs regs{};
    each([&](int u) { regs[u] = allocate_one(); });
    return regs;
  }
  void release(const Regs& regs) {
    each([&](int u) { free_ |= 1u << regs[u]; });
  }

  void generate() {
    for (const bool streaming : {false, true}) {
      align(16);
      entry_offset_[streaming] = getSize();
      generate_function(streaming);
    }
  }

  void generate_function(bool streaming) {
    streaming_ = streaming;
    mov(r11, reinterpret_cast<uintptr_t>(rows_.data()));
    shl(rcx, 2);  // elements to bytes
    xor_(r10, r10);
    xor_(r9, r9);
    start_range_flags();
    Xbyak::Label loop;
    L(loop);
    for (std::size_t i = 0; i < program_.instructions.size(); ++i)
      emit_instruction(i);
    add(r10, unroll_ * vector_bytes());
    add(r9, block());
    cmp(r10, rcx);
    jb(loop);
    store_range_flag();
    vzeroupper();  // no penalty for SSE code after the call
    ret();
  }

  /// Clears the lanes out of range (AVX2: in a register kept for the whole function).
  void start_range_flags() {
    if (!checks_range_) return;
    if (isa_ == JitIsa::Avx512) return kxorw(k5, k5, k5);
    range_flags_ = allocate_one();
    vpxor(vec(range_flags_), vec(range_flags_), vec(range_flags_));
  }
  /// *r8 = whether any lane was out of range.
  void store_range_flag() {
    if (!checks_range_) return mov(byte[r8], 0);
    if (isa_ == JitIsa::Avx512) {
      kortestw(k5, k5);
    } else {
      vptest(vec(range_flags_), vec(range_flags_));
      free_ |= 1u << range_flags_;
    }
    setnz(al);
    mov(byte[r8], al);
  }
  /// Adds the lanes of x outside [row valid_min, row valid_max] (NaN included) to the flags.
  void flag_out_of_range(const Regs& x, int valid_min, int valid_max) {
    if (isa_ == JitIsa::Avx512) {
      each([&](int u) {
        vcmpps(k6, vec(x[u]), constant(valid_min), kNotGreaterEqual);
        vcmpps(k7, vec(x[u]), constant(valid_max), kNotLessEqual);
        korw(k6, k6, k7);
        korw(k5, k5, k6);
      });
      return;
    }
    const Regs outside = allocate();
    each([&](int u) {
      vcmpps(vec(outside[u]), vec(x[u]), constant(valid_min), kNotGreaterEqual);
      vpor(vec(range_flags_), vec(range_flags_), vec(outside[u]));
      vcmpps(vec(outside[u]), vec(x[u]), constant(valid_max), kNotLessEqual);
      vpor(vec(range_flags_), vec(range_flags_), vec(outside[u]));
    });
    release(outside);
  }

  void emit_instruction(std::size_t i) {
    const ir::Instruction& instruction = program_.instructions[i];
    for (const ir::ProgramRef arg : instruction.args)
      load(arg);
    const auto result = std::visit(
        [&](const auto& op) {
          using Op = std::decay_t<decltype(op)>;
          if constexpr (std::is_same_v<Op, ir::Unary>) {
            return unary(op.op, arg(instruction, 0));
          } else if constexpr (std::is_same_v<Op, ir::Binary>) {
            return binary(op.op, arg(instruction, 0), arg(instruction, 1));
          } else if constexpr (std::is_same_v<Op, ir::BinaryScalar>) {
            return binary_scalar(op, i, arg(instruction, 0));
          } else if constexpr (std::is_same_v<Op, ir::Activation>) {
            return activation(op.op, i, arg(instruction, 0));
          } else if constexpr (std::is_same_v<Op, ir::Compare>) {
            return lanes_of(formula::compare(Math(*this), op.op, borrow(arg(instruction, 0)),
                                             borrow(arg(instruction, 1))));
          } else if constexpr (std::is_same_v<Op, ir::CompareScalar>) {
            return with_scalar(i, [&](Formula value) {
              return lanes_of(formula::compare(Math(*this), op.op, borrow(arg(instruction, 0)),
                                               std::move(value)));
            });
          } else if constexpr (std::is_same_v<Op, ir::Where>) {
            return take(formula::where(Math(*this), mask_of(arg(instruction, 0)),
                                       borrow(arg(instruction, 1)), borrow(arg(instruction, 2))));
          } else if constexpr (std::is_same_v<Op, ir::MaskFill>) {
            return with_scalar(i, [&](Formula value) {
              return take(formula::mask_fill(Math(*this), borrow(arg(instruction, 0)),
                                             mask_of(arg(instruction, 1)), std::move(value)));
            });
          } else if constexpr (std::is_same_v<Op, ir::Cast>) {
            return cast(held_as(program_.dtype_of(instruction.args[0])), held_as(instruction.dtype),
                        arg(instruction, 0));
          } else {
            return Regs{};  // unreachable: covered() admits nothing else
          }
        },
        instruction.op);
    if (is_narrow_float(instruction.dtype)) round_to(instruction.dtype, result);
    const std::size_t value = program_.inputs.size() + i;
    registers_of_[value] = result;
    for (std::size_t k = 0; k < program_.outputs.size(); ++k) {
      if (program_.outputs[k] == i) store(k, result);
    }
    for (const ir::ProgramRef ref : instruction.args) {
      const std::size_t dying = value_of(program_, ref);
      if (last_use_[dying] == static_cast<int64_t>(i)) release_value(dying);
    }
    if (last_use_[value] == kNever) release_value(value);
  }

  Regs arg(const ir::Instruction& instruction, std::size_t k) const {
    return *registers_of_[value_of(program_, instruction.args[k])];
  }
  void release_value(std::size_t value) {
    if (!registers_of_[value]) return;  // an argument given twice
    release(*registers_of_[value]);
    registers_of_[value].reset();
  }

  void load(ir::ProgramRef ref) {
    const std::size_t value = value_of(program_, ref);
    if (registers_of_[value]) return;
    const auto r = allocate();
    mov(rax, ptr[rdi + static_cast<int>(ref.index * sizeof(void*))]);
    const DType dtype = program_.dtype_of(ref);
    if (dtype == DType::BF16) {
      // The 16 bits are the f32's high half.
      each([&](int u) { vpmovzxwd(vec(r[u]), narrow_element(u)); });
      each([&](int u) { vpslld(vec(r[u]), vec(r[u]), 16); });
    } else if (dtype == DType::F16) {
      each([&](int u) { vcvtph2ps(vec(r[u]), narrow_element(u)); });  // exact
    } else if (dtype == DType::Bool) {
      // Bytes 0 / 1 widened to 32-bit lanes, then 1 spread to all ones.
      each([&](int u) { vpmovzxbd(vec(r[u]), ptr[rax + r9 + u * lanes()]); });
      each([&](int u) { vpslld(vec(r[u]), vec(r[u]), 31); });
      each([&](int u) { vpsrad(vec(r[u]), vec(r[u]), 31); });
    } else {
      each([&](int u) { vmovups(vec(r[u]), ptr[rax + r10 + u * vector_bytes()]); });
    }
    registers_of_[value] = r;
  }
  void store(std::size_t output, const Regs& r) {
    mov(rax, ptr[rsi + static_cast<int>(output * sizeof(void*))]);
    const DType dtype = program_.instructions[program_.outputs[output]].dtype;
    if (dtype == DType::Bool) return store_bools(r);
    if (is_narrow_float(dtype)) return store_narrow(dtype, r);
    each([&](int u) {
      const Xbyak::Address at = ptr[rax + r10 + u * vector_bytes()];
      if (streaming_) return vmovntps(at, vec(r[u]));
      vmovups(at, vec(r[u]));
    });
  }

  /// Vector u's elements of a bf16 or f16 array at rax: element offset r9, two bytes each.
  Xbyak::Address narrow_element(int u) const { return ptr[rax + r9 * 2 + u * lanes() * 2]; }

  /// Lanes rounded to dtype already (round_to) as its 16-bit values at rax + 2 r9, exactly, with
  /// plain stores; NaN lanes, whose payloads Half and BFloat16 narrow in their own way, are left to
  /// the caller (flagged).
  void store_narrow(DType dtype, const Regs& r) {
    flag_nan(r);
    const Reg bits = allocate_one();
    each([&](int u) {
      if (dtype == DType::F16) {
        if (isa_ == JitIsa::Avx512) return vcvtps2ph(narrow_element(u), Xbyak::Zmm(r[u]), 0);
        return vcvtps2ph(narrow_element(u), Xbyak::Ymm(r[u]), 0);
      }
      vpsrld(vec(bits), vec(r[u]), 16);
      if (isa_ == JitIsa::Avx512) return vpmovdw(narrow_element(u), vec(bits));
      // AVX2 has no narrowing store: pack the 8 lanes (each below 2^16) through 128-bit halves.
      const Reg upper = allocate_one();
      vextracti128(Xbyak::Xmm(upper), Xbyak::Ymm(bits), 1);
      vpackusdw(Xbyak::Xmm(bits), Xbyak::Xmm(bits), Xbyak::Xmm(upper));
      vmovdqu(narrow_element(u), Xbyak::Xmm(bits));
      free_ |= 1u << upper;
    });
    free_ |= 1u << bits;
  }

  /// x rounded in place to dtype (bf16 or f16), to nearest even, as fused.cpp's tile loops round
  /// each narrow result. A NaN stays a NaN, perhaps of another payload: the ops after it see the
  /// same NaN-ness, and a NaN output is the caller's (store_narrow). Where the rounding is done
  /// on the integer bits (no AVX512_BF16), which may turn a NaN into an infinity, NaN lanes are
  /// flagged here already.
  void round_to(DType dtype, const Regs& x) {
    const Reg t = allocate_one();
    const Xbyak::Xmm half = isa_ == JitIsa::Avx512 ? Xbyak::Xmm(Xbyak::Ymm(t)) : Xbyak::Xmm(t);
    if (dtype == DType::BF16 && !bf16_instructions_) flag_nan(x);
    each([&](int u) {
      if (dtype == DType::F16) {
        vcvtps2ph(half, vec(x[u]), 0);  // imm 0: to nearest even
        vcvtph2ps(vec(x[u]), half);
        return;
      }
      if (bf16_instructions_) {
        vcvtneps2bf16(half, vec(x[u]));  // to nearest even; a NaN quieted
        vpmovzxwd(vec(x[u]), half);
        vpslld(vec(x[u]), vec(x[u]), 16);
        return;
      }
      // bits + 0x7fff + (the kept lowest bit), the low half then cleared.
      vpsrld(vec(t), vec(x[u]), 16);
      bit_and(t, t, constant(kBFloat16Lsb));
      vpaddd(vec(t), vec(t), constant(kBFloat16Half));
      vpaddd(vec(x[u]), vec(x[u]), vec(t));
      bit_and(x[u], x[u], constant(kBFloat16Kept));
    });
    free_ |= 1u << t;
  }

  /// Adds the NaN lanes of x to the flags.
  void flag_nan(const Regs& x) {
    if (isa_ == JitIsa::Avx512) {
      each([&](int u) {
        vcmpps(k6, vec(x[u]), vec(x[u]), kUnordered);
        korw(k5, k5, k6);
      });
      return;
    }
    const Reg nan = allocate_one();
    each([&](int u) {
      vcmpps(vec(nan), vec(x[u]), vec(x[u]), kUnordered);
      vpor(vec(range_flags_), vec(range_flags_), vec(nan));
    });
    free_ |= 1u << nan;
  }

  /// Bool lanes as bytes 0 / 1 at rax + r9, with plain stores (a streaming store of a few
  /// bytes would cost more than it saves).
  void store_bools(const Regs& r) {
    const Reg ones = allocate_one();
    each([&](int u) {
      vpsrld(vec(ones), vec(r[u]), 31);
      const Xbyak::Address at = ptr[rax + r9 + u * lanes()];
      if (isa_ == JitIsa::Avx512) return vpmovdb(at, vec(ones));
      // AVX2 has no narrowing store: pack the 8 lanes to 8 bytes through 128-bit halves.
      const Reg upper = allocate_one();
      vextracti128(Xbyak::Xmm(upper), Xbyak::Ymm(ones), 1);
      vpackusdw(Xbyak::Xmm(ones), Xbyak::Xmm(ones), Xbyak::Xmm(upper));
      vpackuswb(Xbyak::Xmm(ones), Xbyak::Xmm(ones), Xbyak::Xmm(ones));
      vmovq(at, Xbyak::Xmm(ones));
      free_ |= 1u << upper;
    });
    free_ |= 1u << ones;
  }

  /// Where instruction's scalar is (rdx: one f32 per instruction).
  static int scalar_offset(std::size_t instruction) {
    return static_cast<int>(instruction * sizeof(float));
  }
  /// A new register holding instruction's scalar in every lane.
  Reg broadcast_scalar(std::size_t instruction) {
    const Reg value = allocate_one();
    vbroadcastss(vec(value), ptr[rdx + scalar_offset(instruction)]);
    return value;
  }

  /// A new register holding, lane by lane, all ones where a compares to b by predicate.
  Reg compare_by(uint8_t predicate, Reg a, const Xbyak::Operand& b) {
    const Reg d = allocate_one();
    if (isa_ == JitIsa::Avx512) {
      vcmpps(k1, vec(a), b, predicate);
      vmovaps(vec(d) | k1 | T_z, constant(kAllOnes));
    } else {
      vcmpps(vec(d), vec(a), b, predicate);
    }
    return d;
  }

  /// New registers holding, lane by lane, a where condition's lanes are all ones, else b.
  Regs select(const Regs& condition, const Regs& a, const Regs& b) {
    const Regs d = allocate();
    if (isa_ == JitIsa::Avx512) {
      each([&](int u) { vmovaps(vec(d[u]), vec(condition[u])); });
      each([&](int u) { vpternlogd(vec(d[u]), vec(a[u]), vec(b[u]), 0xCA); });  // d ? a : b
    } else {
      each([&](int u) { vblendvps(vec(d[u]), vec(b[u]), vec(a[u]), vec(condition[u])); });
    }
    return d;
  }

  /// f(the scalar of instruction as a formula value) with its register freed after: f returns
  /// the instruction's registers.
  template <typename F>
  Regs with_scalar(std::size_t instruction, const F& f) {
    Regs value{};
    value.fill(broadcast_scalar(instruction));
    const Regs result = f(borrow(value));
    free_ |= 1u << value[0];
    return result;
  }

  /// x converted from one dtype to the other by the formulas: to Bool "!= 0" (NaN is true), to
  /// F32 1 or 0.
  Regs cast(DType from, DType to, const Regs& x) {
    if (from == to) {
      const Regs d = allocate();
      each([&](int u) { vmovaps(vec(d[u]), vec(x[u])); });
      return d;
    }
    if (to == DType::F32) return take(formula::from_bool(Math(*this), mask_of(x)));
    return lanes_of(formula::to_bool(Math(*this), borrow(x)));
  }

  Regs binary_scalar(const ir::BinaryScalar& op, std::size_t instruction, const Regs& x) {
    if (isa_ == JitIsa::Avx512 && !op.scalar_lhs && is_arithmetic(op.op)) {
      // The scalar broadcast from memory by the instruction itself (AVX-512's {1to16}).
      const Xbyak::Address scalar = ptr_b[rdx + scalar_offset(instruction)];
      const Regs d = allocate();
      each([&](int u) { binary_op(op.op, d[u], x[u], scalar); });
      return d;
    }
    if (is_logical(op.op)) {
      // The Bool scalar is 1 or 0 in f32 (fused.cpp): its mask is its to_bool.
      return with_scalar(instruction, [&](Formula value) {
        const Math m(*this);
        return lanes_of(formula::logical(m, op.op, mask_of(x), formula::to_bool(m, value)));
      });
    }
    // One register holds the scalar for every vector of the block.
    Regs value{};
    value.fill(broadcast_scalar(instruction));
    const Regs result = op.scalar_lhs ? binary(op.op, value, x) : binary(op.op, x, value);
    free_ |= 1u << value[0];
    return result;
  }

  static bool is_arithmetic(ir::BinaryOp op) {
    return op == ir::BinaryOp::Add || op == ir::BinaryOp::Sub || op == ir::BinaryOp::Mul ||
           op == ir::BinaryOp::Div;
  }
  /// d = a op b (b a register, or for the arithmetic ops a broadcast from memory).
  void binary_op(ir::BinaryOp op, Reg d, Reg a, const Xbyak::Operand& b) {
    switch (op) {
      case ir::BinaryOp::Add:
        return vaddps(vec(d), vec(a), b);
      case ir::BinaryOp::Sub:
        return vsubps(vec(d), vec(a), b);
      case ir::BinaryOp::Mul:
        return vmulps(vec(d), vec(a), b);
      case ir::BinaryOp::Div:
        return vdivps(vec(d), vec(a), b);
      case ir::BinaryOp::Maximum:
        return vmaxps(vec(d), vec(a), b);
      case ir::BinaryOp::Minimum:
        return vminps(vec(d), vec(a), b);
      case ir::BinaryOp::Rem:
      case ir::BinaryOp::Pow:
      case ir::BinaryOp::And:  // formula::logical (binary())
      case ir::BinaryOp::Or:
      case ir::BinaryOp::Xor:
        throw NotCovered{};
    }
  }

  /// a op b: one instruction for the arithmetic ops, the formulas (ir/formulas.h) for maximum and
  /// minimum (a NaN on either side wins, a's first; of +-0, a) and the Bool ops.
  Regs binary(ir::BinaryOp op, const Regs& a, const Regs& b) {
    if (is_logical(op)) return lanes_of(formula::logical(Math(*this), op, mask_of(a), mask_of(b)));
    if (op == ir::BinaryOp::Maximum || op == ir::BinaryOp::Minimum)
      return take(formula::binary(Math(*this), op, borrow(a), borrow(b)));
    const Regs d = allocate();
    each([&](int u) { binary_op(op, d[u], a[u], vec(b[u])); });
    return d;
  }

  /// op by its formula (ir/formulas.h): Not of Bool lanes, IsNan and IsInf of f32 lanes giving
  /// Bool lanes, or a float op.
  Regs unary(ir::UnaryOp op, const Regs& x) {
    if (op == ir::UnaryOp::Not) return lanes_of(formula::bool_not(Math(*this), mask_of(x)));
    if (!formula::is_float_unary(op))
      return lanes_of(formula::float_predicate(Math(*this), op, borrow(x)));
    return take(formula::unary(Math(*this), op, borrow(x)));
  }

  /// RationalTanh of simd_elementwise.cpp, operation for operation; NaN lanes give x.
  Regs tanh(const Regs& x) {
    const Regs clamped = allocate();
    each([&](int u) { vmaxps(vec(clamped[u]), vec(x[u]), constant(kMinusTanhSaturates)); });
    each([&](int u) { vminps(vec(clamped[u]), vec(clamped[u]), constant(kTanhSaturates)); });
    const Regs y = product(clamped, clamped);
    const Regs y2 = product(y, y);
    const Regs y4 = product(y2, y2);
    const Regs p = linear(y, kTanhP);
    const Regs p1 = linear(y, kTanhP + 2);
    const Regs p3 = linear(y, kTanhP + 4);
    each([&](int u) { vfmadd231ps(vec(p3[u]), vec(y2[u]), constant(kTanhP + 6)); });
    each([&](int u) { vfmadd231ps(vec(p[u]), vec(p1[u]), vec(y2[u])); });
    each([&](int u) { vfmadd231ps(vec(p[u]), vec(p3[u]), vec(y4[u])); });
    release(p1);
    release(p3);
    release(y4);
    const Regs q = linear(y, kTanhQ);
    const Regs q1 = linear(y, kTanhQ + 2);
    each([&](int u) { vfmadd231ps(vec(q[u]), vec(q1[u]), vec(y2[u])); });
    release(q1);
    release(y2);
    release(y);
    each([&](int u) { vmulps(vec(p[u]), vec(p[u]), vec(clamped[u])); });
    each([&](int u) { vdivps(vec(p[u]), vec(p[u]), vec(q[u])); });
    each([&](int u) { vmaxps(vec(p[u]), vec(p[u]), constant(kMinusOne)); });
    each([&](int u) { vminps(vec(p[u]), vec(p[u]), constant(kOne)); });
    release(q);
    const Regs magnitude = clamped;  // clamped is dead: its registers hold |x| now
    each([&](int u) { bit_and(magnitude[u], x[u], constant(kAbsMask)); });
    const auto tiny = [&](int) { return constant(kTanhTiny); };
    select_where(p, magnitude, tiny, kNotGreaterEqual, x);
    release(magnitude);
    return p;
  }

  /// Highway's ExpPoly(ExpReduce(x, q)) (highway_exp.h), the start of its Exp and Expm1: q = x /
  /// ln 2 rounded to an integer, r = x - q ln 2 (in two parts), y = r + r^2 Estrin(r; k0..k5).
  /// Returns y's registers and q's.
  std::pair<Regs, Regs> exp_polynomial(const Regs& x) {
    // q = int(x / ln 2 + 0.5 with x's sign), truncated
    const Regs q = allocate();
    each([&](int u) { bit_and(q[u], x[u], constant(kSignMask)); });
    each([&](int u) { bit_or(q[u], q[u], constant(kHalf)); });
    each([&](int u) { vfmadd231ps(vec(q[u]), vec(x[u]), constant(kOneOverLn2)); });
    each([&](int u) { vcvttps2dq(vec(q[u]), vec(q[u])); });
    const Regs r = allocate();
    const Regs qf = allocate();
    each([&](int u) { vcvtdq2ps(vec(qf[u]), vec(q[u])); });
    each([&](int u) { vmovaps(vec(r[u]), vec(x[u])); });
    each([&](int u) { vfmadd231ps(vec(r[u]), vec(qf[u]), constant(kLn2Part0)); });
    each([&](int u) { vfmadd231ps(vec(r[u]), vec(qf[u]), constant(kLn2Part1)); });
    release(qf);
    const Regs r2 = product(r, r);
    const Regs r4 = product(r2, r2);
    const Regs y = linear(r, kExpPoly + 4);
    const Regs middle = linear(r, kExpPoly + 2);
    each([&](int u) { vfmadd231ps(vec(y[u]), vec(r2[u]), vec(middle[u])); });
    release(middle);
    const Regs high = linear(r, kExpPoly);
    each([&](int u) { vfmadd231ps(vec(y[u]), vec(r4[u]), vec(high[u])); });
    release(high);
    release(r4);
    each([&](int u) { vfmadd213ps(vec(y[u]), vec(r2[u]), vec(r[u])); });
    release(r2);
    release(r);
    return {y, q};
  }

  /// y = y 2^(q >> 1) 2^(q - (q >> 1)), each power built in the exponent bits (Highway's
  /// LoadExpShortRange); q's registers are released.
  void times_power_of_two(const Regs& y, const Regs& q) {
    const Regs half = allocate();
    each([&](int u) { vpsrad(vec(half[u]), vec(q[u]), 1); });
    each([&](int u) { vpsubd(vec(q[u]), vec(q[u]), vec(half[u])); });
    for (const Regs* part : {&half, &q}) {
      each([&](int u) { vpaddd(vec((*part)[u]), vec((*part)[u]), constant(kExponentBias)); });
      each([&](int u) { vpslld(vec((*part)[u]), vec((*part)[u]), 23); });
      each([&](int u) { vmulps(vec(y[u]), vec(y[u]), vec((*part)[u])); });
    }
    release(half);
    release(q);
  }

  /// Highway's f32 Exp (highway_exp.h), operation for operation.
  Regs exp(const Regs& x) {
    const auto [y, q] = exp_polynomial(x);
    each([&](int u) { vaddps(vec(y[u]), vec(y[u]), constant(kOne)); });
    times_power_of_two(y, q);
    const Regs zero = zeros();  // below kLowerBound
    const auto lower_bound = [&](int) { return constant(kExpLowerBound); };
    select_where(y, x, lower_bound, kNotGreaterEqual, zero);
    release(zero);
    return y;
  }

  /// Highway's f32 Expm1, operation for operation: the polynomial itself where |x| < ln 2 / 2,
  /// else exp(x) - 1 from it; -1 below kLowerBound.
  Regs expm1(const Regs& x) {
    const auto [y, q] = exp_polynomial(x);
    const Regs d = allocate();
    each([&](int u) { vaddps(vec(d[u]), vec(y[u]), constant(kOne)); });
    times_power_of_two(d, q);
    each([&](int u) { vsubps(vec(d[u]), vec(d[u]), constant(kOne)); });
    const Regs magnitude = allocate();
    each([&](int u) { bit_and(magnitude[u], x[u], constant(kAbsMask)); });
    select_where(
        d, magnitude, [&](int) { return constant(kLn2Over2); }, kLess, y);
    release(magnitude);
    release(y);
    const Regs minus_one = splat_of(kMinusOne);
    select_where(
        d, x, [&](int) { return constant(kExpLowerBound); }, kLess, minus_one);
    release(minus_one);
    return d;
  }

  /// Highway's f32 Log (highway_log.h), operation for operation, for normal positive x (the
  /// other lanes are flagged: Highway's scaling of subnormals is left out). With consume, x's
  /// registers are taken (fewer live at once).
  Regs log(const Regs& x, bool consume = false) {
    // e = the exponent of x relative to sqrt(2)/2, as a float
    const Regs bits = consume ? x : allocate();
    each([&](int u) { vpaddd(vec(bits[u]), vec(x[u]), constant(kLogExponentShift)); });
    const Regs e = allocate();
    each([&](int u) { vpsrld(vec(e[u]), vec(bits[u]), 23); });
    each([&](int u) { vpsubd(vec(e[u]), vec(e[u]), constant(kExponentBias)); });
    each([&](int u) { vcvtdq2ps(vec(e[u]), vec(e[u])); });
    // y = x / 2^e in [sqrt(2)/2, sqrt(2)); z = (y - 1) / (y + 1)
    const Regs z = bits;  // bits die into y, then z
    each([&](int u) { bit_and(z[u], bits[u], constant(kMantissaMask)); });
    each([&](int u) { vpaddd(vec(z[u]), vec(z[u]), constant(kSqrtHalfBits)); });
    const Regs ym1 = allocate();
    each([&](int u) { vsubps(vec(ym1[u]), vec(z[u]), constant(kOne)); });
    each([&](int u) { vaddps(vec(z[u]), vec(z[u]), constant(kOne)); });
    each([&](int u) { vdivps(vec(z[u]), vec(ym1[u]), vec(z[u])); });
    // poly = (k2 z^4 + k0) z^2 + (k3 z^4 + k1) z^4
    const Regs z2 = product(z, z);
    const Regs z4 = product(z2, z2);
    const Regs poly = linear_of(z4, kLogPoly + 2, kLogPoly);
    const Regs odd = linear_of(z4, kLogPoly + 3, kLogPoly + 1);
    each([&](int u) { vmulps(vec(odd[u]), vec(odd[u]), vec(z4[u])); });
    each([&](int u) { vfmadd213ps(vec(poly[u]), vec(z2[u]), vec(odd[u])); });
    release(odd);
    release(z4);
    release(z2);
    // e ln2_hi - ((z (ym1 - poly) - e ln2_lo) - ym1)
    const Regs t = poly;  // poly dies into the sum
    each([&](int u) { vsubps(vec(t[u]), vec(ym1[u]), vec(poly[u])); });
    const Regs low_part = product_with_constant(e, kLn2Lo);
    each([&](int u) { vfmsub213ps(vec(t[u]), vec(z[u]), vec(low_part[u])); });
    release(low_part);
    each([&](int u) { vsubps(vec(t[u]), vec(t[u]), vec(ym1[u])); });
    each([&](int u) { vfmsub231ps(vec(t[u]), vec(e[u]), constant(kLn2Hi)); });
    release(ym1);
    release(z);
    release(e);
    return t;
  }

  /// The activation by its formula (ir/formulas.h), as the Highway loop computes it.
  /// instruction: where its parameter is.
  Regs activation(ir::ActivationOp op, std::size_t instruction, const Regs& x) {
    const Math m(*this);
    const auto parameter = [&] { return own(scalar_splat(instruction)); };
    return take(formula::activation(m, op, borrow(x), parameter));
  }

  /// New registers holding zeros.
  Regs zeros() {
    const Regs z = allocate();
    each([&](int u) { bit_xor(z[u], z[u], vec(z[u])); });
    return z;
  }
  /// New registers holding constant row.
  Regs splat_of(int row) {
    const Regs r = allocate();
    each([&](int u) { vmovups(vec(r[u]), constant(row)); });
    return r;
  }

  /// New registers holding instruction's scalar (an activation's parameter) in every lane.
  Regs scalar_splat(std::size_t instruction) {
    const Regs d = allocate();
    each([&](int u) { vbroadcastss(vec(d[u]), ptr[rdx + scalar_offset(instruction)]); });
    return d;
  }

  /// Highway's f32 Log1p, for x >= 0 (the softplus's): x where 1 + x rounds to 1, else
  /// log(1 + x) x / ((1 + x) - 1). 1 + x is computed where each use needs it rather than kept,
  /// and the ratio after the log, so that fewer registers are live during log.
  Regs log1p(const Regs& x) {
    const auto one_plus_x = [&] {
      const Regs y = allocate();
      each([&](int u) { vaddps(vec(y[u]), vec(x[u]), constant(kOne)); });
      return y;
    };
    const Regs d = log(one_plus_x(), true);
    const Regs ratio = one_plus_x();
    each([&](int u) { vsubps(vec(ratio[u]), vec(ratio[u]), constant(kOne)); });
    each([&](int u) { vdivps(vec(ratio[u]), vec(x[u]), vec(ratio[u])); });
    each([&](int u) { vmulps(vec(d[u]), vec(d[u]), vec(ratio[u])); });
    release(ratio);
    const Regs y = one_plus_x();
    select_where(
        d, y, [&](int) { return constant(kOne); }, kEqual, x);
    release(y);
    return d;
  }

  // ---- the formulas' target (ir/formulas.h): values in this code's registers -----------------

  /// Registers that formula values hold, released when the last copy of the value goes where
  /// owned (a program value's registers are only borrowed).
  struct Held {
    Held(Generator* generator, const Regs& regs, bool owned)
        : generator(generator), regs(regs), owned(owned) {}
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    ~Held() {
      if (owned) generator->release(regs);
    }
    Generator* generator;
    Regs regs;
    bool owned;
  };
  /// A formula value: registers, or a constant row that an instruction reads from memory (no
  /// register, and no instruction to load it, where the instruction can take it as an operand).
  struct Formula {
    std::shared_ptr<Held> held;  ///< null for a constant
    int row = 0;
  };
  Formula own(const Regs& regs) { return {std::make_shared<Held>(this, regs, true)}; }
  Formula borrow(const Regs& regs) { return {std::make_shared<Held>(this, regs, false)}; }
  /// v in registers: a constant is loaded into new ones, which the returned value holds.
  Formula in_registers(const Formula& v) { return v.held ? v : own(splat_of(v.row)); }
  const Regs& regs(const Formula& v) const { return v.held->regs; }
  /// v's registers, now the caller's: taken where no other value holds them, else copied.
  Regs take(Formula&& v) {
    v = in_registers(v);
    if (v.held.use_count() == 1 && v.held->owned) {
      v.held->owned = false;
      return regs(v);
    }
    const Regs d = allocate();
    each([&](int u) { vmovaps(vec(d[u]), vec(regs(v)[u])); });
    return d;
  }
  /// f(u, operand) for each vector u of b: its register, or its constant row in memory.
  template <typename F>
  void each_operand(const Formula& b, const F& f) {
    each([&](int u) {
      if (b.held) return f(u, vec(regs(b)[u]));
      f(u, constant(b.row));
    });
  }
  /// A new value, emit(d, a, b) for each vector: b may be a constant in memory; a constant a is
  /// loaded, or for a commutative op swapped with a register b.
  /// The primitives take their arguments by value and release them once they have emitted their
  /// instructions: a formula's temporaries then hold registers no longer than they are needed.
  template <typename Emit>
  Formula arithmetic(Formula a, Formula b, bool commutative, const Emit& emit) {
    if (!a.held && b.held && commutative) std::swap(a, b);
    a = in_registers(a);
    const Regs d = allocate();
    each_operand(b, [&](int u, const auto& operand) { emit(d[u], regs(a)[u], operand); });
    a = b = {};
    return own(d);
  }
  /// A formula's mask: a compare not yet emitted, which the select that takes it emits into a
  /// mask register (AVX-512) or a vector (AVX2) and blends at once; or, with predicate kLanes, a
  /// Bool value whose lanes (all ones or zeros) a holds.
  struct Comparison {
    uint8_t predicate;
    Formula a, b;
  };
  /// A Bool program value as a formula's mask.
  Comparison mask_of(const Regs& lanes) { return {kLanes, borrow(lanes), {}}; }
  /// c's lanes, all ones where it holds: a new value.
  Formula lanes(Comparison c) {
    if (c.predicate == kLanes) return std::move(c.a);
    c.a = in_registers(c.a);
    Regs d{};
    each_operand(c.b, [&](int u, const auto& operand) {
      d[u] = compare_by(c.predicate, regs(c.a)[u], operand);
    });
    return own(d);
  }
  /// c's lanes in registers that are now the caller's (a Bool instruction's result).
  Regs lanes_of(Comparison c) { return take(lanes(std::move(c))); }
  /// A new mask: op(a's lanes, b's lanes), bitwise.
  Comparison combined(Comparison a, Comparison b,
                      void (Generator::*op)(Reg, Reg, const Xbyak::Operand&)) {
    Formula x = lanes(std::move(a));
    Formula y = lanes(std::move(b));
    const Regs d = allocate();
    each([&](int u) { (this->*op)(d[u], regs(x)[u], vec(regs(y)[u])); });
    return {kLanes, own(d), {}};
  }
  /// A new mask: not c.
  Comparison inverted(Comparison c) {
    Formula x = lanes(std::move(c));
    const Regs d = allocate();
    each([&](int u) { bit_xor(d[u], regs(x)[u], constant(kAllOnes)); });
    return {kLanes, own(d), {}};
  }
  /// A new value: where c holds, a, else b.
  Formula selected(Comparison c, Formula a, Formula b) {
    if (c.predicate == kLanes) {
      a = in_registers(a);
      b = in_registers(b);
      return own(select(regs(c.a), regs(a), regs(b)));
    }
    c.a = in_registers(c.a);
    a = in_registers(a);
    b = in_registers(b);
    const Regs d = allocate();
    each_operand(c.b, [&](int u, const auto& operand) {
      if (isa_ == JitIsa::Avx512) {
        vcmpps(k1, vec(regs(c.a)[u]), operand, c.predicate);
        return vblendmps(vec(d[u]) | k1, vec(regs(b)[u]), vec(regs(a)[u]));
      }
      vcmpps(vec(d[u]), vec(regs(c.a)[u]), operand, c.predicate);
      vblendvps(vec(d[u]), vec(regs(b)[u]), vec(regs(a)[u]), vec(d[u]));
    });
    c.a = c.b = a = b = {};
    return own(d);
  }
  /// A new value, f(x's registers) giving new registers.
  template <typename F>
  Formula transformed(Formula x, const F& f) {
    x = in_registers(x);
    const Regs d = f(regs(x));
    x = {};
    return own(d);
  }
  /// A row of the constant table holding value in every lane, added where none does.
  int row_of(float value) {
    const ConstantRow row = splat(value);
    const auto found = std::find_if(rows_.begin(), rows_.end(),
                                    [&](const ConstantRow& r) { return r.bits == row.bits; });
    if (found != rows_.end()) return static_cast<int>(found - rows_.begin());
    // The code holds the table's address: it must not move.
    if (rows_.size() == rows_.capacity()) throw NotCovered{};
    rows_.push_back(row);
    return static_cast<int>(rows_.size() - 1);
  }

  /// The formulas' primitives (ir/formulas.h), each the instructions of the Highway loop's.
  class Math {
   public:
    using Value = Formula;
    using Mask = Comparison;

    explicit Math(Generator& generator) : g_(&generator) {}

    Value constant(double c) const { return {nullptr, g_->row_of(static_cast<float>(c))}; }
    Value lowest() const { return {nullptr, kLowest}; }

    Value add(Value a, Value b) const { return instruction(ir::BinaryOp::Add, a, b, true); }
    Value sub(Value a, Value b) const { return instruction(ir::BinaryOp::Sub, a, b, false); }
    Value mul(Value a, Value b) const { return instruction(ir::BinaryOp::Mul, a, b, true); }
    Value div(Value a, Value b) const { return instruction(ir::BinaryOp::Div, a, b, false); }
    // vminps(b, a) is b < a ? b : a and vmaxps(b, a) is b > a ? b : a: formulas.h's min(a, b)
    // and max(a, b) exactly, NaN and +-0 included (either one NaN, or the two equal: a).
    Value min(Value a, Value b) const { return instruction(ir::BinaryOp::Minimum, b, a, false); }
    Value max(Value a, Value b) const { return instruction(ir::BinaryOp::Maximum, b, a, false); }
    /// a b + c, rounded once (vfmadd213ps: d = d b + c, d a copy of a).
    Value mul_add(Value a, Value b, Value c) const {
      const Regs d = g_->take(std::move(a));
      b = g_->in_registers(b);
      g_->each_operand(c, [&](int u, const auto& operand) {
        g_->vfmadd213ps(g_->vec(d[u]), g_->vec(g_->regs(b)[u]), operand);
      });
      b = c = {};
      return g_->own(d);
    }

    Value neg(Value x) const { return bitwise(std::move(x), kSignMask, &Generator::bit_xor); }
    Value abs(Value x) const { return bitwise(std::move(x), kAbsMask, &Generator::bit_and); }
    Value sqrt(Value x) const {
      return g_->transformed(std::move(x), [g = g_](const Regs& r) {
        const Regs d = g->allocate();
        g->each([&](int u) { g->vsqrtps(g->vec(d[u]), g->vec(r[u])); });
        return d;
      });
    }
    // The lanes where the Highway target flags a primitive (simd_math-inl.h), which its loops
    // compute by the reference formulas, are flagged here too, and those where this code's
    // primitive is narrower than Highway's (log1p of a negative value).
    Value exp(Value x) const {
      return flagged(std::move(x), kExpValidMin, kExpValidMax,
                     [g = g_](const Regs& r) { return g->exp(r); });
    }
    Value expm1(Value x) const {
      return flagged(std::move(x), kExpValidMin, kExpValidMax,
                     [g = g_](const Regs& r) { return g->expm1(r); });
    }
    Value log(Value x) const {
      return flagged(std::move(x), kLogValidMin, kFloatMax,
                     [g = g_](const Regs& r) { return g->log(r); });
    }
    Value log1p(Value x) const {
      return flagged(std::move(x), g_->row_of(0.0f), kFloatMax,
                     [g = g_](const Regs& r) { return g->log1p(r); });
    }
    Value tanh(Value x) const {
      return g_->transformed(std::move(x), [g = g_](const Regs& r) { return g->tanh(r); });
    }
    Value erfc(Value x) const { return formula::erfc_rational(*this, std::move(x)); }
    // No code (compiled_primitives() leaves them out): covered() refuses every formula that uses
    // them.
    Value sin(const Value& /*x*/) const { throw NotCovered{}; }
    Value cos(const Value& /*x*/) const { throw NotCovered{}; }
    Value tan(const Value& /*x*/) const { throw NotCovered{}; }
    Value erf(const Value& /*x*/) const { throw NotCovered{}; }
    Value pow(const Value& /*a*/, const Value& /*b*/) const { throw NotCovered{}; }
    Value fmod(const Value& /*a*/, const Value& /*b*/) const { throw NotCovered{}; }
    // Rounded to an integer by vroundps / vrndscaleps, exceptions suppressed (8), as Highway's.
    Value floor(Value x) const { return rounded(std::move(x), 8 | 1); }
    Value ceil(Value x) const { return rounded(std::move(x), 8 | 2); }
    Value round(Value x) const { return rounded(std::move(x), 8 | 0); }  // half to even

    // Predicates as vcmpps's (ordered: false where either is NaN), emitted by the select.
    static Mask lt(Value a, Value b) { return {kLess, std::move(a), std::move(b)}; }
    static Mask le(Value a, Value b) { return {kLessEqual, std::move(a), std::move(b)}; }
    static Mask gt(Value a, Value b) { return {kGreater, std::move(a), std::move(b)}; }
    static Mask ge(Value a, Value b) { return {kGreaterEqual, std::move(a), std::move(b)}; }
    static Mask eq(Value a, Value b) { return {kEqual, std::move(a), std::move(b)}; }
    static Mask ne(Value a, Value b) { return {kNotEqual, std::move(a), std::move(b)}; }
    static Mask is_nan(const Value& x) { return {kUnordered, x, x}; }
    // Bool values as lanes of all ones or zeros, combined bitwise.
    Mask mask_and(Mask a, Mask b) const {
      return g_->combined(std::move(a), std::move(b), &Generator::bit_and);
    }
    Mask mask_or(Mask a, Mask b) const {
      return g_->combined(std::move(a), std::move(b), &Generator::bit_or);
    }
    Mask mask_xor(Mask a, Mask b) const {
      return g_->combined(std::move(a), std::move(b), &Generator::bit_xor);
    }
    Mask mask_not(Mask a) const { return g_->inverted(std::move(a)); }
    Value select(Mask m, Value a, Value b) const {
      return g_->selected(std::move(m), std::move(a), std::move(b));
    }

   private:
    /// A new value, x op y by the one instruction Generator::binary_op emits for op.
    Value instruction(ir::BinaryOp op, Value& x, Value& y, bool commutative) const {
      return g_->arithmetic(
          std::move(x), std::move(y), commutative,
          [g = g_, op](Reg d, Reg r, const auto& operand) { g->binary_op(op, d, r, operand); });
    }
    /// primitive(x's registers), the lanes of x outside [row lo, row hi] (NaN included) flagged.
    template <typename F>
    Value flagged(Value x, int lo, int hi, const F& primitive) const {
      return g_->transformed(std::move(x), [&](const Regs& r) {
        g_->flag_out_of_range(r, lo, hi);
        return primitive(r);
      });
    }
    Value rounded(Value x, uint8_t mode) const {
      return g_->transformed(std::move(x), [&](const Regs& r) {
        const Regs d = g_->allocate();
        g_->each([&](int u) {
          if (g_->isa_ == JitIsa::Avx512)
            return g_->vrndscaleps(g_->vec(d[u]), g_->vec(r[u]), mode);
          g_->vroundps(g_->vec(d[u]), g_->vec(r[u]), mode);
        });
        return d;
      });
    }
    Value bitwise(Value x, int row, void (Generator::*op)(Reg, Reg, const Xbyak::Operand&)) const {
      return g_->transformed(std::move(x), [&](const Regs& r) {
        const Regs d = g_->allocate();
        g_->each([&](int u) { (g_->*op)(d[u], r[u], g_->constant(row)); });
        return d;
      });
    }

    Generator* g_;
  };

  /// New registers holding constant row a times y plus row b, fused.
  Regs linear_of(const Regs& y, int a, int b) {
    const Regs r = splat_of(a);
    each([&](int u) { vfmadd213ps(vec(r[u]), vec(y[u]), constant(b)); });
    return r;
  }

  /// New registers holding a times constant row c.
  Regs product_with_constant(const Regs& a, int c) {
    const Regs r = allocate();
    each([&](int u) { vmulps(vec(r[u]), vec(a[u]), constant(c)); });
    return r;
  }
  /// New registers holding a times b.
  Regs product(const Regs& a, const Regs& b) {
    const Regs r = allocate();
    each([&](int u) { vmulps(vec(r[u]), vec(a[u]), vec(b[u])); });
    return r;
  }
  /// New registers holding constant row first times y plus row first + 1, fused.
  Regs linear(const Regs& y, int first) { return linear_of(y, first, first + 1); }

  /// Lanes of d where a compares to b(u) by predicate take source's value.
  template <typename Operand>
  void select_where(const Regs& d, const Regs& a, const Operand& b, uint8_t predicate,
                    const Regs& source) {
    if (isa_ == JitIsa::Avx512) {
      const Xbyak::Opmask masks[kMaxUnroll] = {k1, k2};
      each([&](int u) { vcmpps(masks[u], vec(a[u]), b(u), predicate); });
      each([&](int u) { vmovaps(vec(d[u]) | masks[u], vec(source[u])); });
      return;
    }
    const Regs mask = allocate();
    each([&](int u) { vcmpps(vec(mask[u]), vec(a[u]), b(u), predicate); });
    each([&](int u) { vblendvps(vec(d[u]), vec(d[u]), vec(source[u]), vec(mask[u])); });
    release(mask);
  }

  // Bitwise operations: AVX-512F has them on 32-bit integer lanes only (vandps on zmm needs DQ).
  void bit_and(Reg d, Reg a, const Xbyak::Operand& b) {
    if (isa_ == JitIsa::Avx512) return vpandd(vec(d), vec(a), b);
    vpand(vec(d), vec(a), b);
  }
  void bit_or(Reg d, Reg a, const Xbyak::Operand& b) {
    if (isa_ == JitIsa::Avx512) return vpord(vec(d), vec(a), b);
    vpor(vec(d), vec(a), b);
  }
  void bit_xor(Reg d, Reg a, const Xbyak::Operand& b) {
    if (isa_ == JitIsa::Avx512) return vpxord(vec(d), vec(a), b);
    vpxor(vec(d), vec(a), b);
  }

  const ir::Program& program_;
  JitIsa isa_;
  int unroll_;
  uint32_t free_;                                  ///< one bit per free vector register
  std::vector<std::optional<Regs>> registers_of_;  ///< per value: its registers while alive
  std::vector<int64_t> last_use_;                  ///< per value
  bool streaming_ = false;                         ///< the function being generated streams
  bool checks_range_ = false;                      ///< the program holds exp, or narrow values
  bool bf16_instructions_ = false;                 ///< vcvtneps2bf16 rounds to bf16
  Reg range_flags_ = 0;                            ///< AVX2: the lanes out of range so far
  std::size_t entry_offset_[2] = {};               ///< per streaming flag
  /// The constants the code reads (constant_table(), then the formulas' own), at an address
  /// fixed for the code's life: reserved once, never reallocated.
  std::vector<ConstantRow> rows_ = constant_rows();
};

}  // namespace

std::optional<JitIsa> JitProgram::native_isa() {
  static const std::optional<JitIsa> isa = []() -> std::optional<JitIsa> {
    using Cpu = Xbyak::util::Cpu;
    const Cpu cpu;
    if (cpu.has(Cpu::tAVX512F)) return JitIsa::Avx512;
    if (cpu.has(Cpu::tAVX2) && cpu.has(Cpu::tFMA)) return JitIsa::Avx2;
    return std::nullopt;
  }();
  return isa;
}

std::unique_ptr<const JitProgram> JitProgram::compile(const ir::Program& program, JitIsa isa) {
  if (!covered(program)) return nullptr;
  // Two vectors a pass where the registers suffice, else one.
  for (int unroll = Generator::kMaxUnroll; unroll >= 1; --unroll) {
    try {
      auto generator = std::make_unique<Generator>(program, isa, unroll);
      const Entries entries = {reinterpret_cast<Entry>(generator->entry(false)),
                               reinterpret_cast<Entry>(generator->entry(true))};
      const int64_t block = generator->block();
      auto code = std::make_unique<Code>(Code{std::move(generator)});
      return std::unique_ptr<const JitProgram>(new JitProgram(std::move(code), entries, block));
    } catch (const OutOfRegisters&) {
      continue;  // fewer vectors a pass, or, at one, the tile interpreter runs it
    } catch (const NotCovered&) {
      return nullptr;
    } catch (const Xbyak::Error&) {
      return nullptr;  // no executable memory (a hardened system, or none left): likewise
    }
  }
  return nullptr;
}

#else  // no Xbyak: nothing is compiled

struct JitProgram::Code {};

std::optional<JitIsa> JitProgram::native_isa() {
  return std::nullopt;
}

std::unique_ptr<const JitProgram> JitProgram::compile(const ir::Program& /*program*/,
                                                      JitIsa /*isa*/) {
  return nullptr;
}

#endif

JitProgram::JitProgram(std::unique_ptr<Code> code, Entries entries, int64_t block)
    : code_(std::move(code)), entries_(entries), block_(block) {}

JitProgram::~JitProgram() = default;

float activation_parameter(const ir::Activation& activation) {
  return static_cast<float>(ir::parameter_of(activation));
}

const JitProgram* compiled_program(const ir::Program& program) {
  // The compiled code rounds each multiply-add once; so must the loops it stands in for, or the
  // fused values would differ from the eager ones.
  static const bool enabled = [] {
    const char* value = std::getenv("EMBER_JIT");
    return (value == nullptr || std::string_view(value) != "0") && simd::multiply_add_is_fused();
  }();
  const std::optional<JitIsa> isa = JitProgram::native_isa();
  if (!enabled || !isa) return nullptr;
  return program.compiled.get<JitProgram>([&] { return JitProgram::compile(program, *isa); });
}

}  // namespace ember::flex
