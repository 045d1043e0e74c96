// The fused-program emitter (codegen/cuda_program.h): programs built as the fusion decorator
// builds them (a GELU chain of primitive ops, comparisons feeding where and casts, mask_fill of
// broadcast inputs, a transposed input, two outputs, Bool-only and f16 programs) are written,
// compiled with NVRTC, and where a GPU is, run and compared with the same instructions run one
// by one on ndarray. Programs it cannot write are refused with the instruction, op and dtype.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "codegen/cuda_c.h"
#include "codegen/cuda_program.h"
#include "codegen_test_util.h"
#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/float16.h"
#include "ember/tensor_data.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"
#include "ir/program.h"
#include "tensor/dispatch.h"

namespace ember::codegen::test {
namespace {

using Ref = ir::ProgramRef;

/// A program with what one execution of it needs: its constants, the output's shape, and how
/// each input is read (its shape, broadcast to the output's; or transposed: stored with its two
/// dims swapped and read through swapped strides).
struct ProgramCase {
  std::string name;
  ir::Program program;
  std::vector<Scalar> constants;
  Shape shape;
  std::vector<Shape> input_shapes;  ///< as the program reads them
  std::vector<bool> transposed;
  /// Float inputs of large magnitudes too (beyond the integers' ranges), for casts to integers.
  bool wide = false;
};

/// Builds programs as the fusion decorator does: one constant per op with a scalar, in order.
class Builder {
 public:
  Builder(std::string name, Shape shape) {
    case_.name = std::move(name);
    case_.shape = std::move(shape);
  }

  Ref input(DType dtype, const Shape& shape, bool transposed = false) {
    case_.program.inputs.push_back({dtype, ir::broadcast_flags(shape, case_.shape)});
    case_.input_shapes.push_back(shape);
    case_.transposed.push_back(transposed);
    return {Ref::Kind::Input, static_cast<uint32_t>(case_.program.inputs.size() - 1)};
  }

  /// op on args; its dtype is ir's.
  Ref op(const ir::Op& op, std::vector<Ref> args) {
    std::vector<ir::TensorMeta> metas;
    for (const Ref arg : args)
      metas.push_back({Shape{1}, case_.program.dtype_of(arg)});
    // An expand, the identity of a broadcast input, keeps its dtype (its shape is the program's).
    const DType dtype =
        std::holds_alternative<ir::Expand>(op) ? metas[0].dtype : ir::infer(op, metas)[0].dtype;
    std::optional<uint32_t> constant;
    if (const std::optional<Scalar> value = ir::scalar_of(op)) {
      constant = static_cast<uint32_t>(case_.constants.size());
      case_.constants.push_back(*value);
    }
    case_.program.instructions.push_back({op, std::move(args), dtype, constant});
    return {Ref::Kind::Instruction, static_cast<uint32_t>(case_.program.instructions.size() - 1)};
  }

  void output(Ref ref) { case_.program.outputs.push_back(ref.index); }

  ProgramCase build() {
    case_.program.slots = ir::plan_slots(case_.program);
    return std::move(case_);
  }

 private:
  ProgramCase case_;
};

ir::Op binary(ir::BinaryOp op) {
  return ir::Binary{op};
}
ir::Op scalar(ir::BinaryOp op, double value, bool scalar_lhs = false) {
  return ir::BinaryScalar{op, value, scalar_lhs};
}

/// GELU's tanh form from primitive ops: x / 2 (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
ProgramCase gelu_chain(DType dtype) {
  Builder b("gelu_chain_" + std::string(dtype_name(dtype)), Shape{7, 33});
  const Ref x = b.input(dtype, Shape{7, 33});
  const Ref square = b.op(binary(ir::BinaryOp::Mul), {x, x});
  const Ref cube = b.op(binary(ir::BinaryOp::Mul), {square, x});
  const Ref scaled = b.op(scalar(ir::BinaryOp::Mul, 0.044715), {cube});
  const Ref inner = b.op(binary(ir::BinaryOp::Add), {x, scaled});
  const Ref z = b.op(scalar(ir::BinaryOp::Mul, std::sqrt(2.0 / std::numbers::pi)), {inner});
  const Ref t = b.op(ir::Unary{ir::UnaryOp::Tanh}, {z});
  const Ref one_plus = b.op(scalar(ir::BinaryOp::Add, 1.0), {t});
  const Ref half_x = b.op(scalar(ir::BinaryOp::Mul, 0.5), {x});
  b.output(b.op(binary(ir::BinaryOp::Mul), {half_x, one_plus}));
  return b.build();
}

/// Comparisons (also with a scalar) combined by Bool ops into where's condition, and casts both
/// ways; a broadcast b; outputs a float and a Bool.
ProgramCase compare_where_cast() {
  Builder b("compare_where_cast", Shape{5, 40});
  const Ref a = b.input(DType::F32, Shape{5, 40});
  const Ref c = b.input(DType::F32, Shape{40});
  const Ref greater = b.op(ir::Compare{ir::CompareOp::Greater}, {a, c});
  const Ref small = b.op(ir::CompareScalar{ir::CompareOp::LowerEqual, 0.1}, {a});
  const Ref either = b.op(binary(ir::BinaryOp::Or), {greater, small});
  const Ref chosen = b.op(ir::Where{}, {either, a, c});
  const Ref as_float = b.op(ir::Cast{DType::F32}, {either});
  const Ref sum = b.op(binary(ir::BinaryOp::Add), {chosen, as_float});
  const Ref nonzero = b.op(ir::Cast{DType::Bool}, {c});
  const Ref nan = b.op(ir::Unary{ir::UnaryOp::IsNan}, {a});
  const Ref neither = b.op(ir::Unary{ir::UnaryOp::Not}, {either});
  const Ref flags = b.op(binary(ir::BinaryOp::Xor), {neither, nonzero});
  b.output(sum);
  b.output(b.op(binary(ir::BinaryOp::Or), {flags, nan}));
  return b.build();
}

/// mask_fill of an x and a mask that both broadcast, then activations with parameters.
ProgramCase mask_fill_broadcast() {
  Builder b("mask_fill_broadcast", Shape{3, 4, 5});
  const Ref x = b.input(DType::F32, Shape{3, 1, 5});
  const Ref mask = b.input(DType::Bool, Shape{4, 1});
  const Ref filled = b.op(ir::MaskFill{-1.5}, {x, mask});
  const Ref leaky = b.op(ir::Activation{ir::ActivationOp::LeakyRelu, 0.2}, {filled});
  b.output(filled);
  b.output(b.op(ir::Activation{ir::ActivationOp::Softplus, 0.0, 2.0}, {leaky}));
  ProgramCase c = b.build();
  c.constants[0] = Scalar(int64_t{-3});  // the execution's value, not the one the op was built with
  return c;
}

/// Two outputs, sigmoid and its derivative s (1 - s), of a transposed input; a scalar on the left.
ProgramCase sigmoid_and_derivative() {
  Builder b("sigmoid_and_derivative", Shape{8, 5});
  const Ref x = b.input(DType::F32, Shape{8, 5}, true);
  const Ref s = b.op(ir::Activation{ir::ActivationOp::Sigmoid}, {x});
  const Ref one_minus = b.op(scalar(ir::BinaryOp::Sub, 1.0, true), {s});
  b.output(s);
  b.output(b.op(binary(ir::BinaryOp::Mul), {s, one_minus}));
  return b.build();
}

/// Bool values only: the logical ops (also with a scalar), comparisons of Bools (also with a
/// scalar, which ndarray compares exactly), where and mask_fill of Bools.
ProgramCase bool_only() {
  Builder b("bool_only", Shape{64});
  const Ref p = b.input(DType::Bool, Shape{64});
  const Ref q = b.input(DType::Bool, Shape{64});
  const Ref r = b.input(DType::Bool, Shape{64});
  const Ref x = b.op(binary(ir::BinaryOp::Xor), {p, q});
  const Ref a = b.op(scalar(ir::BinaryOp::And, 1.0, true), {x});
  const Ref less = b.op(ir::Compare{ir::CompareOp::Lower}, {a, r});
  const Ref above = b.op(ir::CompareScalar{ir::CompareOp::Greater, 0.5}, {q});
  const Ref chosen = b.op(ir::Where{}, {less, above, p});
  b.output(b.op(ir::MaskFill{true}, {chosen, r}));
  b.output(b.op(ir::Cast{DType::Bool}, {less}));
  return b.build();
}

/// f16 values: every instruction's result is rounded to f16, as the ops run alone round them.
ProgramCase half_chain(DType dtype) {
  Builder b("half_chain_" + std::string(dtype_name(dtype)), Shape{6, 16});
  const Ref x = b.input(dtype, Shape{6, 16});
  const Ref y = b.input(dtype, Shape{16});
  const Ref sum = b.op(binary(ir::BinaryOp::Add), {x, y});
  const Ref third = b.op(scalar(ir::BinaryOp::Div, 3.0), {sum});
  const Ref positive = b.op(ir::CompareScalar{ir::CompareOp::Greater, 0.3}, {third});
  const Ref e = b.op(ir::Unary{ir::UnaryOp::Exp}, {third});
  b.output(b.op(ir::Where{}, {positive, e, third}));
  return b.build();
}

/// Expands, as the fusion decorator keeps them where the backend reads them as broadcast inputs:
/// a column and a row spread over the shape, stored (the expand's own result) and multiplied.
ProgramCase expands(DType dtype) {
  const Shape shape{6, 16};
  Builder b("expands_" + std::string(dtype_name(dtype)), shape);
  const Ref column = b.op(ir::Expand{shape}, {b.input(dtype, Shape{6, 1})});
  const Ref row = b.op(ir::Expand{shape}, {b.input(dtype, Shape{1, 16})});
  const Ref x = b.input(dtype, shape);
  b.output(column);
  b.output(b.op(binary(ir::BinaryOp::Mul), {b.op(binary(ir::BinaryOp::Mul), {column, x}), row}));
  return b.build();
}

/// Integer arithmetic on dtype, as ndarray computes it: wrapping add, sub, mul (also with a
/// scalar on either side), neg (signed), abs, sign, maximum, minimum, a division, remainder and
/// power by a scalar, comparisons (and with a scalar up to 32 bits) into where and mask_fill, and
/// casts to Bool and f32; a broadcast b.
ProgramCase integer_arithmetic(DType dtype) {
  Builder b("integer_" + std::string(dtype_name(dtype)), Shape{6, 32});
  const Ref x = b.input(dtype, Shape{6, 32});
  const Ref y = b.input(dtype, Shape{32});
  const Ref sum = b.op(binary(ir::BinaryOp::Add), {x, y});
  const Ref product = b.op(binary(ir::BinaryOp::Mul), {sum, x});
  const Ref difference = b.op(binary(ir::BinaryOp::Sub), {product, y});
  const Ref shifted = b.op(scalar(ir::BinaryOp::Sub, 7.0, true), {difference});
  const Ref scaled = b.op(scalar(ir::BinaryOp::Mul, 3.0), {shifted});
  const Ref larger = b.op(binary(ir::BinaryOp::Maximum), {scaled, x});
  const Ref smaller = b.op(binary(ir::BinaryOp::Minimum), {larger, y});
  // Negative divisors and fill value where dtype holds them.
  const double sign_of = is_signed_int(dtype) ? -1.0 : 1.0;
  const Ref quotient = b.op(scalar(ir::BinaryOp::Div, 3.0 * sign_of), {x});
  const Ref rest = b.op(scalar(ir::BinaryOp::Rem, 5.0 * sign_of), {y});
  const Ref power = b.op(scalar(ir::BinaryOp::Pow, 3.0), {x});
  const Ref magnitude = b.op(ir::Unary{ir::UnaryOp::Abs}, {smaller});
  const Ref sign = b.op(ir::Unary{ir::UnaryOp::Sign}, {difference});
  Ref negated = magnitude;
  if (is_signed_int(dtype)) negated = b.op(ir::Unary{ir::UnaryOp::Neg}, {magnitude});
  const Ref greater = b.op(ir::Compare{ir::CompareOp::Greater}, {x, y});
  const Ref chosen = b.op(ir::Where{}, {greater, quotient, negated});
  Ref mask = b.op(ir::Compare{ir::CompareOp::Equal}, {sign, rest});
  if (dtype_size(dtype) <= 4)
    mask = b.op(binary(ir::BinaryOp::Or),
                {mask, b.op(ir::CompareScalar{ir::CompareOp::LowerEqual, 2.5}, {x})});
  const Ref filled = b.op(ir::MaskFill{2.0 * sign_of}, {chosen, mask});
  b.output(b.op(binary(ir::BinaryOp::Add), {filled, power}));
  b.output(b.op(ir::Cast{DType::F32}, {rest}));
  b.output(b.op(ir::Cast{DType::Bool}, {sign}));
  b.output(sign);
  return b.build();
}

/// Casts between integers, floats (with NaN, infinities and values beyond every integer's range)
/// and Bool: a float truncated and saturated into integer, an integer to another (wrapping), an
/// integer of 64 bits to f16 / bf16 (rounded once, through float rounded to odd), to float_dtype
/// and from Bool.
ProgramCase integer_casts(DType integer, DType float_dtype) {
  Builder b(
      "casts_" + std::string(dtype_name(integer)) + "_" + std::string(dtype_name(float_dtype)),
      Shape{4, 64});
  const Ref f = b.input(float_dtype, Shape{4, 64});
  const Ref i = b.input(integer, Shape{4, 64});
  const Ref big = b.input(DType::I64, Shape{4, 64});
  const Ref flags = b.input(DType::Bool, Shape{64});
  const Ref truncated = b.op(ir::Cast{integer}, {f});
  const Ref narrow = b.op(ir::Cast{DType::I8}, {big});
  const Ref widened = b.op(ir::Cast{integer}, {narrow});
  const Ref from_bool = b.op(ir::Cast{integer}, {flags});
  const Ref sum = b.op(binary(ir::BinaryOp::Add), {truncated, widened});
  const Ref total = b.op(binary(ir::BinaryOp::Add), {sum, from_bool});
  b.output(total);
  b.output(b.op(ir::Cast{float_dtype}, {i}));
  b.output(b.op(ir::Cast{float_dtype}, {big}));
  b.output(b.op(ir::Cast{DType::U16}, {big}));
  b.output(b.op(ir::Cast{DType::Bool}, {i}));
  b.output(b.op(ir::Cast{DType::U64}, {f}));
  ProgramCase c = b.build();
  c.wide = true;
  return c;
}

std::vector<ProgramCase> program_cases() {
  std::vector<ProgramCase> cases;
  for (const DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16})
    cases.push_back(gelu_chain(dtype));
  cases.push_back(compare_where_cast());
  cases.push_back(mask_fill_broadcast());
  cases.push_back(sigmoid_and_derivative());
  cases.push_back(bool_only());
  cases.push_back(half_chain(DType::F16));
  cases.push_back(half_chain(DType::BF16));
  for (const DType dtype : {DType::F32, DType::BF16, DType::I64})
    cases.push_back(expands(dtype));
  for (const DType dtype : {DType::I64, DType::I32, DType::I16, DType::I8, DType::U64, DType::U32,
                            DType::U16, DType::U8})
    cases.push_back(integer_arithmetic(dtype));
  cases.push_back(integer_casts(DType::I32, DType::F32));
  cases.push_back(integer_casts(DType::I64, DType::F64));
  cases.push_back(integer_casts(DType::U64, DType::F16));
  cases.push_back(integer_casts(DType::U32, DType::BF16));
  cases.push_back(integer_casts(DType::I16, DType::BF16));
  cases.push_back(integer_casts(DType::U8, DType::F16));
  return cases;
}

std::string kernel_name_of(const ProgramCase& c) {
  return "ember_program_" + c.name;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- the emitter's text -----------------------------------------------------------------------

TEST(ProgramKernel, WritesEveryProgramOfTheCases) {
  for (const ProgramCase& c : program_cases()) {
    EXPECT_TRUE(has_program_kernel(c.program)) << c.name;
    const std::string source = program_kernel(c.program, kernel_name_of(c));
    EXPECT_TRUE(contains(source, "extern \"C\" __global__ void " + kernel_name_of(c) + "("))
        << source;
    EXPECT_EQ(program_scalars(c.program, c.constants).size(), c.constants.size()) << c.name;
  }
}

TEST(ProgramKernel, ParametersAreInputsOutputsShapeStridesAndScalars) {
  const ProgramCase c = mask_fill_broadcast();
  const std::string source = program_kernel(c.program, "fill");
  EXPECT_TRUE(contains(
      source,
      "fill(const float* __restrict__ in0, const unsigned char* __restrict__ in1, "
      "float* __restrict__ out0, float* __restrict__ out1, long long n, int rank, "
      "EMBER_DIMS_PARAM sizes, EMBER_DIMS_PARAM strides0, EMBER_DIMS_PARAM strides1, double "
      "scalar0)"))
      << source;
  EXPECT_TRUE(contains(source, "struct ember_dims {\n  long long d[8];\n};")) << source;
  EXPECT_TRUE(contains(source, "const float v0 = in0[offset0];")) << source;
  EXPECT_TRUE(contains(source, "const bool v1 = in1[offset1] != 0;")) << source;
  // The activations' parameters are in the source, exact.
  EXPECT_TRUE(contains(source, "= 0x1.99999ap-3f;")) << source;  // leaky_relu's 0.2
  EXPECT_TRUE(contains(source, "= 0x1p+1f;")) << source;         // softplus's beta 2
  EXPECT_TRUE(contains(source, "out0[i] = ")) << source;
  EXPECT_TRUE(contains(source, "out1[i] = ")) << source;

  const std::string bools = program_kernel(bool_only().program, "bools");
  EXPECT_TRUE(contains(bools, "unsigned char* __restrict__ out0, unsigned char* __restrict__ out1"))
      << bools;
  EXPECT_TRUE(contains(bools, "out0[i] = (unsigned char)")) << bools;
  EXPECT_FALSE(contains(bools, "float*")) << bools;

  // f16: loaded into float, each result rounded back to f16.
  const std::string half = program_kernel(half_chain(DType::F16).program, "half");
  EXPECT_TRUE(contains(half,
                       "(const unsigned short* __restrict__ in0, const unsigned short* "
                       "__restrict__ in1, unsigned short* __restrict__ out0"))
      << half;
  EXPECT_TRUE(contains(half, "ember_load_f16(ember_store_f16(")) << half;
  // f64 computes in double.
  const std::string f64 = program_kernel(gelu_chain(DType::F64).program, "f64");
  EXPECT_TRUE(contains(f64, "__dmul_rn(")) << f64;
  EXPECT_FALSE(contains(f64, "const float ")) << f64;
}

/// The scalars, every one a double.
std::vector<double> doubles(const std::vector<KernelScalar>& scalars) {
  std::vector<double> values;
  for (const KernelScalar& s : scalars)
    values.push_back(std::get<double>(s));
  return values;
}

TEST(ProgramKernel, ScalarsAreTheExecutionsConstantsRoundedToTheDType) {
  const ProgramCase fill = mask_fill_broadcast();
  EXPECT_EQ(doubles(program_scalars(fill.program, fill.constants)), std::vector<double>{-3.0});
  const ProgramCase chain = gelu_chain(DType::F32);
  const std::vector<double> scalars = doubles(program_scalars(chain.program, chain.constants));
  ASSERT_EQ(scalars.size(), 4U);
  EXPECT_EQ(scalars[0], static_cast<double>(0.044715f));
  EXPECT_EQ(scalars[1], static_cast<double>(static_cast<float>(std::sqrt(2.0 / std::numbers::pi))));
  const ProgramCase half = half_chain(DType::F16);
  EXPECT_EQ(std::get<double>(program_scalars(half.program, half.constants)[1]),
            static_cast<double>(static_cast<float>(Half(0.3f))));
  // A Bool compared with 0.5 compares with kernel_parameter's stand-in, 0.5.
  const ProgramCase bools = bool_only();
  EXPECT_EQ(doubles(program_scalars(bools.program, bools.constants)),
            (std::vector<double>{1.0, 0.5, 1.0}));
  EXPECT_THROW(program_scalars(chain.program, std::vector<Scalar>{1.0}), InvalidArgument);
  // An integer's scalars are long longs of its dtype, but a comparison's, a double (exact for an
  // integer of up to 32 bits).
  const ProgramCase i8 = integer_arithmetic(DType::I8);
  std::vector<Scalar> constants = i8.constants;
  const std::vector<KernelScalar> narrow = program_scalars(i8.program, constants);
  ASSERT_EQ(narrow.size(), 7U);
  EXPECT_EQ(std::get<int64_t>(narrow[0]), 7);
  EXPECT_EQ(std::get<int64_t>(narrow[1]), 3);
  EXPECT_EQ(std::get<int64_t>(narrow[2]), -3);
  EXPECT_EQ(std::get<int64_t>(narrow[3]), -5);
  EXPECT_EQ(std::get<double>(narrow[5]), 2.5);
  EXPECT_EQ(std::get<int64_t>(narrow[6]), -2);
  constants[0] = Scalar(int64_t{-300});  // an int wraps into i8: -44
  EXPECT_EQ(std::get<int64_t>(program_scalars(i8.program, constants)[0]), -44);
  constants[0] = Scalar(1e10);  // a float saturates
  EXPECT_EQ(std::get<int64_t>(program_scalars(i8.program, constants)[0]), 127);
  constants[5] = Scalar(int64_t{1} << 60);  // beyond every i8 as a double too
  EXPECT_EQ(std::get<double>(program_scalars(i8.program, constants)[5]), 0x1p60);
  const ProgramCase u64 = integer_arithmetic(DType::U64);
  ASSERT_EQ(program_scalars(u64.program, u64.constants).size(), 6U);
  constants = u64.constants;
  constants[0] = Scalar(-1.5);  // a float saturates into u64: 0
  EXPECT_EQ(std::get<int64_t>(program_scalars(u64.program, constants)[0]), 0);
  constants[0] = Scalar(int64_t{-1});  // an int wraps: the largest u64, by its bits
  EXPECT_EQ(std::get<int64_t>(program_scalars(u64.program, constants)[0]), -1);
  const std::string source = program_kernel(u64.program, "u64");
  EXPECT_TRUE(contains(source, "long long scalar3")) << source;
  EXPECT_TRUE(contains(source, "unsigned long long* __restrict__ out0")) << source;
  EXPECT_TRUE(contains(source, "ember_ipow<unsigned long long, unsigned long long>(")) << source;
}

TEST(ProgramKernel, SizesAndBroadcastStrides) {
  const KernelDims sizes = kernel_sizes(Shape{3, 4, 5});
  EXPECT_EQ(sizes.d[0], 3);
  EXPECT_EQ(sizes.d[2], 5);
  EXPECT_EQ(sizes.d[3], 0);
  const KernelDims x = broadcast_strides(Shape{3, 1, 5}, Shape{3, 4, 5});
  EXPECT_EQ((std::vector<int64_t>{x.d[0], x.d[1], x.d[2]}), (std::vector<int64_t>{5, 0, 1}));
  const KernelDims mask = broadcast_strides(Shape{4, 1}, Shape{3, 4, 5});
  EXPECT_EQ((std::vector<int64_t>{mask.d[0], mask.d[1], mask.d[2]}),
            (std::vector<int64_t>{0, 1, 0}));
  const KernelDims full = broadcast_strides(Shape{2, 3}, Shape{2, 3});
  EXPECT_EQ((std::vector<int64_t>{full.d[0], full.d[1]}), (std::vector<int64_t>{3, 1}));
  EXPECT_THROW(broadcast_strides(Shape{3}, Shape{2, 4}), InvalidArgument);
  EXPECT_THROW(broadcast_strides(Shape{2, 3}, Shape{3}), InvalidArgument);
  EXPECT_THROW(kernel_sizes(Shape{1, 1, 1, 1, 1, 1, 1, 1, 1}), InvalidArgument);
}

/// Expects program_kernel to refuse program with a message holding every part.
void expect_refused(const ir::Program& program, const std::vector<std::string>& parts) {
  EXPECT_FALSE(has_program_kernel(program));
  try {
    program_kernel(program, "k");
    ADD_FAILURE() << "written: " << program.describe();
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    EXPECT_TRUE(contains(message, "[program_kernel]")) << message;
    for (const std::string& part : parts)
      EXPECT_TRUE(contains(message, part)) << "no \"" << part << "\" in: " << message;
  }
}

TEST(ProgramKernel, RefusesWhatItCannotWrite) {
  const auto one_op = [](DType input, const ir::Op& op, DType result) {
    ir::Program program;
    program.inputs.push_back({input, {false}});
    program.instructions.push_back({op, {{Ref::Kind::Input, 0}}, result, std::nullopt});
    program.outputs = {0};
    return program;
  };
  const ir::Op exp = ir::Unary{ir::UnaryOp::Exp};
  expect_refused(one_op(DType::Bool, exp, DType::Bool), {"instruction 0 (exp)", "bool"});
  expect_refused(one_op(DType::I32, exp, DType::I32), {"instruction 0 (exp)", "i32"});
  // What stays on the host: an integer division, remainder or power by a tensor, or with the
  // scalar on the left (a zero divisor or negative exponent throws on ndarray); a 64-bit integer
  // compared with a scalar; a cast between two float dtypes.
  const auto two_inputs = [](DType input, const ir::Op& op, DType result) {
    ir::Program program;
    program.inputs = {{input, {false}}, {input, {false}}};
    program.instructions.push_back(
        {op, {{Ref::Kind::Input, 0}, {Ref::Kind::Input, 1}}, result, std::nullopt});
    program.outputs = {0};
    return program;
  };
  for (const ir::BinaryOp op : {ir::BinaryOp::Div, ir::BinaryOp::Rem, ir::BinaryOp::Pow}) {
    expect_refused(two_inputs(DType::I32, ir::Binary{op}, DType::I32), {"instruction 0", "i32"});
    ir::Program lhs = one_op(DType::U8, ir::BinaryScalar{op, 2.0, true}, DType::U8);
    lhs.instructions[0].constant = 0;
    expect_refused(lhs, {"instruction 0", "u8"});
    ir::Program rhs = one_op(DType::I64, ir::BinaryScalar{op, 2.0}, DType::I64);
    rhs.instructions[0].constant = 0;
    EXPECT_TRUE(has_program_kernel(rhs)) << rhs.describe();
  }
  for (const DType dtype : {DType::I64, DType::U64}) {
    ir::Program compare = one_op(dtype, ir::CompareScalar{ir::CompareOp::Equal, 1.0}, DType::Bool);
    compare.instructions[0].constant = 0;
    expect_refused(compare, {"(equal_elem)", std::string(dtype_name(dtype))});
  }
  EXPECT_TRUE(
      has_program_kernel(two_inputs(DType::U64, ir::Compare{ir::CompareOp::Lower}, DType::Bool)));
  expect_refused(one_op(DType::I32, ir::Unary{ir::UnaryOp::Sqrt}, DType::I32), {"sqrt", "i32"});
  expect_refused(one_op(DType::U8, ir::Unary{ir::UnaryOp::Neg}, DType::U8), {"neg", "u8"});
  expect_refused(one_op(DType::F16, ir::Cast{DType::F32}, DType::F32), {"cast", "f16"});
  EXPECT_TRUE(has_program_kernel(one_op(DType::F16, ir::Cast{DType::I64}, DType::I64)));
  EXPECT_TRUE(has_program_kernel(one_op(DType::U64, ir::Cast{DType::BF16}, DType::BF16)));
  expect_refused(one_op(DType::F32, ir::Softmax{0}, DType::F32), {"softmax", "f32"});
  expect_refused(one_op(DType::F32, ir::Cast{DType::F16}, DType::F16), {"cast", "f32"});
  expect_refused(one_op(DType::F32, exp, DType::Bool), {"(exp)", "gives f32, not bool"});
  expect_refused(one_op(DType::F32, ir::BinaryScalar{ir::BinaryOp::Add, 1.0}, DType::F32),
                 {"add_scalar", "no constant"});
  expect_refused(one_op(DType::F32, ir::Binary{ir::BinaryOp::Add}, DType::F32), {"(add)", "f32"});

  ir::Program mixed = one_op(DType::F32, exp, DType::F32);
  mixed.inputs.push_back({DType::F64, {false}});
  expect_refused(mixed, {"input 1", "f64", "f32"});
  ir::Program deep = one_op(DType::F32, exp, DType::F32);
  deep.inputs[0].broadcast.assign(kProgramMaxRank + 1, false);
  expect_refused(deep, {"input 0", "9 dims"});
  ir::Program no_output = one_op(DType::F32, exp, DType::F32);
  no_output.outputs.clear();
  expect_refused(no_output, {"no outputs"});
  ir::Program bad_output = one_op(DType::F32, exp, DType::F32);
  bad_output.outputs = {1};
  expect_refused(bad_output, {"output 1"});
  ir::Program forward = one_op(DType::F32, exp, DType::F32);
  forward.instructions[0].args = {{Ref::Kind::Instruction, 0}};
  expect_refused(forward, {"instruction 0 (exp) reads instruction 0"});
  EXPECT_THROW(program_kernel(gelu_chain(DType::F32).program, "no-name"), InvalidArgument);
}

// ---- NVRTC --------------------------------------------------------------------------------------

TEST(ProgramKernelNvrtc, EveryProgramCompilesForComputeCapability90) {
  EMBER_SKIP_WITHOUT_NVRTC();
#ifdef EMBER_WITH_NVRTC
  std::string all;
  const std::vector<ProgramCase> cases = program_cases();
  for (const ProgramCase& c : cases) {
    const std::string source = program_kernel(c.program, kernel_name_of(c));
    const Compiled result = compile(source, kernel_name_of(c), "compute_90");
    EXPECT_TRUE(result.ok) << c.name << " does not compile:\n"
                           << result.log << "\nits source:\n"
                           << source;
    EXPECT_FALSE(result.uses_local_memory()) << c.name << "\n" << result.ptx;
    EXPECT_NE(result.ptx.find(".entry " + kernel_name_of(c) + "("), std::string::npos) << c.name;
    EXPECT_NE(result.ptx.find(".entry " + kernel_name_of(c) + "_flat("), std::string::npos)
        << c.name;
    all += source;
  }
  // The guards let the kernels of several programs share one.
  const Compiled together = compile(all, "ember_programs", "compute_90");
  EXPECT_TRUE(together.ok) << together.log;
  std::cout << "[ codegen  ] " << cases.size() << " program kernels compiled by NVRTC "
            << nvrtc_version() << "\n";
#endif
}

// ---- values on a GPU ----------------------------------------------------------------------------

/// The stored data of input k of c: floats in [-4, 4] after some special values, Bools at random.
TensorData stored_input(const ProgramCase& c, std::size_t k, std::mt19937& rng) {
  const DType dtype = c.program.inputs[k].dtype;
  Shape shape = c.input_shapes[k];
  if (c.transposed[k]) shape = Shape{shape[1], shape[0]};
  const auto n = static_cast<std::size_t>(shape.num_elements());
  const std::vector<double> special = {0.0,
                                       -0.0,
                                       0.1,
                                       1.0,
                                       -1.5,
                                       3.0,
                                       std::numeric_limits<double>::infinity(),
                                       std::numeric_limits<double>::quiet_NaN()};
  if (is_int(dtype)) {
    // Each integer dtype's extremes and small values, then small values and random bits.
    const std::vector<int64_t> special = {0,
                                          1,
                                          -1,
                                          2,
                                          -2,
                                          3,
                                          127,
                                          -128,
                                          255,
                                          -32768,
                                          65535,
                                          std::numeric_limits<int32_t>::min(),
                                          std::numeric_limits<int64_t>::min(),
                                          std::numeric_limits<int64_t>::max(),
                                          4294967295LL};
    std::vector<int64_t> values(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (i < special.size()) {
        values[i] = special[(i + k) % special.size()];
      } else if (i % 3 == 0) {
        values[i] = static_cast<int64_t>((uint64_t{rng()} << 32) | rng());
      } else {
        values[i] = static_cast<int64_t>(rng() % 601) - 300;
      }
    }
    return TensorData(values, shape, dtype);  // wrapped into dtype
  }
  std::uniform_real_distribution<double> uniform(-4.0, 4.0);
  std::vector<double> values(n);
  if (c.wide && dtype != DType::Bool) {
    const std::vector<double> wide = {0.0,
                                      -0.0,
                                      0.5,
                                      -0.5,
                                      -0.99,
                                      2.5,
                                      -2.5,
                                      127.5,
                                      128.0,
                                      -128.5,
                                      -129.0,
                                      255.9,
                                      256.0,
                                      65535.5,
                                      3e9,
                                      -3e9,
                                      0x1p31,
                                      -0x1p31,
                                      0x1p63,
                                      -0x1p63,
                                      0x1p64,
                                      1e30,
                                      -1e30,
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::quiet_NaN()};
    std::uniform_real_distribution<double> exponent(-2.0, 21.0);
    for (std::size_t i = 0; i < n; ++i)
      values[i] =
          i < wide.size() ? wide[i] : (rng() % 2 == 0 ? 1 : -1) * std::pow(10.0, exponent(rng));
    return TensorData(values, shape, dtype);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (dtype == DType::Bool) {
      values[i] = static_cast<double>(rng() % 2);
    } else {
      values[i] = i < special.size() && k == 0 ? special[i] : uniform(rng);
    }
  }
  return TensorData(values, shape, dtype);
}

/// The inputs as the program reads them, on ndarray and broadcast to the output's shape, and the
/// outputs of c's instructions run one by one there.
std::pair<std::vector<TensorData>, std::vector<TensorData>> run_on_ndarray(
    const ProgramCase& c, const std::vector<TensorData>& stored) {
  const Device reference = Device::ndarray();
  std::vector<TensorHandle> values;
  std::vector<TensorData> read;
  for (std::size_t k = 0; k < stored.size(); ++k) {
    TensorHandle x = ops::from_data(stored[k], reference, kind_of(stored[k].dtype()));
    if (c.transposed[k]) x = tensor::run_one(ir::Permute{{1, 0}}, {x});
    std::vector<int64_t> padded(c.shape.rank() - c.input_shapes[k].rank(), 1);
    for (std::size_t d = 0; d < c.input_shapes[k].rank(); ++d)
      padded.push_back(c.input_shapes[k][d]);
    x = tensor::run_one(ir::Reshape{Shape(padded)}, {x});
    x = tensor::run_one(ir::Expand{c.shape}, {x});
    read.push_back(ops::into_data(x));
    values.push_back(x);
  }
  for (std::size_t j = 0; j < c.program.instructions.size(); ++j) {
    std::vector<TensorHandle> args;
    for (const Ref arg : c.program.instructions[j].args)
      args.push_back(values[arg.kind == Ref::Kind::Input ? arg.index : stored.size() + arg.index]);
    values.push_back(tensor::run(c.program.bound_op(j, c.constants), args)[0]);
  }
  std::vector<TensorData> outputs;
  for (const uint32_t output : c.program.outputs)
    outputs.push_back(ops::into_data(values[stored.size() + output]));
  return {read, outputs};
}

/// The strides of input k of c: broadcast_strides, or a transposed input's swapped strides.
KernelDims input_strides(const ProgramCase& c, std::size_t k) {
  if (c.transposed[k]) return KernelDims{{1, c.input_shapes[k][0]}};
  return broadcast_strides(c.input_shapes[k], c.shape);
}

// The GPU case's inputs and references, built where no GPU is too.
TEST(ProgramKernelGpuInputs, EveryCaseRunsOneByOneOnNdarray) {
  std::mt19937 rng(11);
  for (const ProgramCase& c : program_cases()) {
    std::vector<TensorData> stored;
    for (std::size_t k = 0; k < c.program.inputs.size(); ++k)
      stored.push_back(stored_input(c, k, rng));
    const auto [read, outputs] = run_on_ndarray(c, stored);
    ASSERT_EQ(outputs.size(), c.program.outputs.size()) << c.name;
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      EXPECT_EQ(outputs[k].shape(), c.shape) << c.name;
      EXPECT_EQ(outputs[k].dtype(), c.program.instructions[c.program.outputs[k]].dtype) << c.name;
    }
    // The strides the kernel takes read each stored input as ndarray broadcasts it.
    const std::vector<int64_t> sizes = c.shape.dims();
    for (std::size_t k = 0; k < read.size(); ++k) {
      ASSERT_EQ(read[k].shape(), c.shape) << c.name;
      const KernelDims strides = input_strides(c, k);
      const std::vector<double> from = stored[k].to_vector<double>();
      const std::vector<double> want = read[k].to_vector<double>();
      for (std::size_t i = 0; i < want.size(); ++i) {
        int64_t rest = static_cast<int64_t>(i);
        int64_t offset = 0;
        for (std::size_t d = sizes.size(); d-- > 0;) {
          offset += rest % sizes[d] * strides.d[d];
          rest /= sizes[d];
        }
        const double got = from[static_cast<std::size_t>(offset)];
        EXPECT_TRUE(got == want[i] || (std::isnan(got) && std::isnan(want[i])))
            << c.name << " input " << k << " element " << i;
      }
    }
  }
}

#ifdef EMBER_WITH_NVRTC

/// The program's float dtype, F32 for a Bool-only program.
DType float_dtype_of(const ir::Program& program) {
  for (const ir::ProgramInput& input : program.inputs)
    if (is_float(input.dtype)) return input.dtype;
  return DType::F32;
}

/// Chains compound the math library's few ulp and, in f16 and bf16, the roundings they flip.
Bound program_bound(DType dtype) {
  switch (dtype) {
    case DType::F64:
      return {1e-12, 1e-13};
    case DType::F16:
      return {4e-3, 1e-3};
    case DType::BF16:
      return {3e-2, 1e-2};
    default:
      return {1e-5, 1e-6};
  }
}

#endif  // EMBER_WITH_NVRTC

TEST(ProgramKernelGpu, ProgramsMatchTheirInstructionsRunOneByOneOnNdarray) {
  EMBER_SKIP_WITHOUT_NVRTC();
#ifdef EMBER_WITH_NVRTC
  std::string why;
  const Driver* driver = Driver::get(&why);
  if (driver == nullptr) GTEST_SKIP() << "no GPU to run the kernels on: " << why;
  std::mt19937 rng(11);
  int checked = 0;
  for (const ProgramCase& c : program_cases()) {
    const std::string name = kernel_name_of(c);
    const Compiled compiled =
        compile(program_kernel(c.program, name), name, driver->architecture());
    ASSERT_TRUE(compiled.ok) << name << ": " << compiled.log;
    std::vector<TensorData> stored;
    for (std::size_t k = 0; k < c.program.inputs.size(); ++k)
      stored.push_back(stored_input(c, k, rng));
    std::vector<std::vector<std::byte>> extra;
    extra.push_back(argument_bytes(static_cast<int>(c.shape.rank())));
    extra.push_back(argument_bytes(kernel_sizes(c.shape)));
    for (std::size_t k = 0; k < stored.size(); ++k)
      extra.push_back(argument_bytes(input_strides(c, k)));
    for (const KernelScalar& s : program_scalars(c.program, c.constants))
      std::visit([&](auto value) { extra.push_back(argument_bytes(value)); }, s);
    std::vector<DType> output_dtypes;
    for (const uint32_t output : c.program.outputs)
      output_dtypes.push_back(c.program.instructions[output].dtype);
    std::vector<TensorData> gpu;
    try {
      gpu = run_on_gpu(*driver, compiled.ptx, name, stored, output_dtypes, c.shape, extra);
    } catch (const std::runtime_error& e) {
      if (is_unsupported_ptx(e))
        GTEST_SKIP() << "the driver (CUDA " << driver->version() << ") cannot load the PTX of "
                     << "NVRTC " << nvrtc_version() << ": " << e.what();
      FAIL() << name << ": " << e.what();
    }
    const auto [read, expected] = run_on_ndarray(c, stored);
    for (std::size_t k = 0; k < expected.size(); ++k) {
      // Integer and Bool results, and whatever an integer program computes, exactly.
      if (!is_float(expected[k].dtype()) || !is_float(float_dtype_of(c.program)) ||
          std::ranges::any_of(c.program.inputs,
                              [](const ir::ProgramInput& in) { return is_int(in.dtype); })) {
        EXPECT_TRUE(gpu[k] == expected[k])
            << name << " output " << k << ": GPU " << gpu[k] << ", expected " << expected[k];
        continue;
      }
      EXPECT_EQ(count_mismatches(name + " output " + std::to_string(k), gpu[k], expected[k], read,
                                 program_bound(float_dtype_of(c.program))),
                0);
    }
    ++checked;
  }
  std::cout << "[ codegen  ] " << checked << " program kernels match ndarray on "
            << driver->architecture() << "\n";
#endif
}

}  // namespace
}  // namespace ember::codegen::test
