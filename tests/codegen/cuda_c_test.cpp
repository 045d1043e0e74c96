// The CUDA C emitter's elementwise kernels (codegen/cuda_c.h). The ops it must write come from
// the op table through ir's rules (every elementwise op ir accepts on a float dtype or Bool, with
// a float or Bool result), not from a list here: for each, on every such dtype, the kernel
// compiles with NVRTC; where a GPU and its driver are, each kernel runs on special and ordinary
// values and matches the ndarray reference. Without NVRTC (no CUDA toolkit at build time) or
// without a GPU, those cases skip and say why.
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
#include "codegen_test_util.h"
#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/float16.h"
#include "ember/tensor_data.h"
#include "ember/tensor_ops.h"
#include "ir/formulas.h"
#include "ir/ops.h"
#include "tensor/dispatch.h"

namespace ember::codegen::test {
namespace {

/// The dtypes the emitter writes kernels on: the float dtypes and Bool.
constexpr DType kKernelDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::Bool};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The parameters the activations run with: alpha (LeakyRelu, Elu, Celu) and Softplus's beta.
constexpr double kAlpha = 0.75;
constexpr double kBeta = 1.5;
/// The scalar of the ops that take one (0.1 is not a float: f32, f16 and bf16 round it).
constexpr double kScalar = 0.1;

/// Every elementwise op of the op table: each unary, binary (and with a scalar on either side),
/// comparison (and with a scalar) and activation, where, mask_fill and a cast to every dtype.
std::vector<ir::Op> table_ops() {
  std::vector<ir::Op> ops;
  for (const ir::UnaryOp op : ir::all_ops<ir::UnaryOp>())
    ops.emplace_back(ir::Unary{op});
  for (const ir::BinaryOp op : ir::all_ops<ir::BinaryOp>()) {
    ops.emplace_back(ir::Binary{op});
    ops.emplace_back(ir::BinaryScalar{op, kScalar, false});
    ops.emplace_back(ir::BinaryScalar{op, kScalar, true});
  }
  for (const ir::CompareOp op : ir::all_ops<ir::CompareOp>()) {
    ops.emplace_back(ir::Compare{op});
    ops.emplace_back(ir::CompareScalar{op, kScalar});
  }
  ops.emplace_back(ir::Where{});
  ops.emplace_back(ir::MaskFill{kScalar});
  for (const DType dtype : kAllDTypes)
    ops.emplace_back(ir::Cast{dtype});
  for (const ir::ActivationOp op : ir::all_ops<ir::ActivationOp>())
    ops.emplace_back(ir::Activation{op, kAlpha, kBeta});
  return ops;
}

/// The dtypes of the tensor operands of op's kernel on dtype: Where's condition and MaskFill's
/// mask are Bool.
std::vector<DType> operand_dtypes(const ir::Op& op, DType dtype) {
  if (std::holds_alternative<ir::Binary>(op) || std::holds_alternative<ir::Compare>(op))
    return {dtype, dtype};
  if (std::holds_alternative<ir::Where>(op)) return {DType::Bool, dtype, dtype};
  if (std::holds_alternative<ir::MaskFill>(op)) return {dtype, DType::Bool};
  return {dtype};
}

/// The dtype of op's result on dtype, or none where ir refuses op on dtype.
std::optional<DType> result_dtype(const ir::Op& op, DType dtype) {
  std::vector<ir::TensorMeta> inputs;
  for (const DType d : operand_dtypes(op, dtype))
    inputs.push_back({Shape{4}, d});
  try {
    return ir::infer(op, inputs)[0].dtype;
  } catch (const InvalidArgument&) {
    return std::nullopt;
  }
}

bool float_or_bool(DType dtype) {
  return is_float(dtype) || dtype == DType::Bool;
}

/// Whether the emitter must write op on dtype: ir takes it there, with a float or Bool operand
/// and result, and a cast turns a float into a Bool or a Bool into a float.
bool must_write(const ir::Op& op, DType dtype) {
  const std::optional<DType> result = result_dtype(op, dtype);
  if (!result || !float_or_bool(dtype) || !float_or_bool(*result)) return false;
  return !std::holds_alternative<ir::Cast>(op) || is_float(dtype) != is_float(*result);
}

/// A kernel the emitter must write, and the name the tests give it (an op's index in table_ops
/// keeps the names of ops of one name apart: add_scalar with the scalar on either side, casts).
struct Kernel {
  ir::Op op;
  DType dtype;
  std::string name;
};

std::vector<Kernel> kernels_on(DType dtype) {
  std::vector<Kernel> kernels;
  const std::vector<ir::Op> ops = table_ops();
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (!must_write(ops[k], dtype)) continue;
    const std::string name = "ember_" + std::to_string(k) + "_" + ir::name(ops[k]) + "_" +
                             std::string(dtype_name(dtype));
    kernels.push_back({ops[k], dtype, name});
  }
  return kernels;
}

// ---- the emitter's text -----------------------------------------------------------------------

TEST(CudaCEmitter, WritesTheOpsOfTheTableAndRefusesTheOthers) {
  int written = 0;
  int bool_kernels = 0;
  for (const ir::Op& op : table_ops()) {
    for (const DType dtype : kAllDTypes) {
      const bool expected = must_write(op, dtype);
      const std::string label = ir::name(op) + " on " + std::string(dtype_name(dtype));
      EXPECT_EQ(has_elementwise_kernel(op, dtype), expected) << label;
      if (expected) {
        const std::string source = elementwise_kernel(op, dtype, "ember_kernel");
        EXPECT_NE(source.find("extern \"C\" __global__ void ember_kernel("), std::string::npos)
            << label << ":\n"
            << source;
        // formulas.h's min and max, not the math library's, whose NaN rule differs.
        EXPECT_EQ(source.find("fmin"), std::string::npos) << label;
        EXPECT_EQ(source.find("fmax"), std::string::npos) << label;
        ++written;
        bool_kernels += *result_dtype(op, dtype) == DType::Bool ? 1 : 0;
        continue;
      }
      try {
        elementwise_kernel(op, dtype, "k");
        ADD_FAILURE() << label << ": written, but the emitter says it has no kernel for it";
      } catch (const InvalidArgument& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("[" + ir::name(op) + "]"), std::string::npos) << message;
        EXPECT_NE(message.find(std::string(dtype_name(dtype))), std::string::npos) << message;
      }
    }
  }
  int expected_written = 0;
  for (const DType dtype : kKernelDTypes)
    expected_written += static_cast<int>(kernels_on(dtype).size());
  EXPECT_EQ(written, expected_written);
  // Comparisons, predicates, casts to Bool and the Bool ops: the table has some of each.
  EXPECT_GT(bool_kernels, 0);
}

TEST(CudaCEmitter, RefusesOtherOpsAndDTypesAndBadKernelNames) {
  const ir::Op exp = ir::Unary{ir::UnaryOp::Exp};
  EXPECT_FALSE(has_elementwise_kernel(exp, DType::Bool));
  try {
    elementwise_kernel(exp, DType::Bool, "k");
    ADD_FAILURE() << "exp written on bool";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("[exp]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bool"), std::string::npos) << e.what();
  }
  EXPECT_THROW(elementwise_kernel(ir::Unary{ir::UnaryOp::Not}, DType::F32, "k"), InvalidArgument);
  EXPECT_THROW(elementwise_kernel(ir::Binary{ir::BinaryOp::And}, DType::F32, "k"), InvalidArgument);
  EXPECT_THROW(elementwise_kernel(ir::Compare{ir::CompareOp::Lower}, DType::I32, "k"),
               InvalidArgument);
  EXPECT_THROW(elementwise_kernel(ir::Cast{DType::F16}, DType::F32, "k"), InvalidArgument);
  EXPECT_THROW(elementwise_kernel(ir::Cast{DType::I32}, DType::Bool, "k"), InvalidArgument);
  EXPECT_FALSE(has_elementwise_kernel(ir::Softmax{0}, DType::F32));
  EXPECT_THROW(elementwise_kernel(ir::Softmax{0}, DType::F32, "k"), InvalidArgument);
  EXPECT_THROW(elementwise_kernel(ir::Reduce{ir::ReduceOp::Sum, std::nullopt}, DType::F32, "k"),
               InvalidArgument);
  for (const char* name : {"", "1k", "k-1", "k(", "k k", "k;"})
    EXPECT_THROW(elementwise_kernel(exp, DType::F32, name), InvalidArgument) << name;
  EXPECT_NO_THROW(elementwise_kernel(exp, DType::F32, "_Exp_1"));
  EXPECT_THROW(CudaC{DType::F16}, InvalidArgument);
  EXPECT_THROW(CudaC{DType::Bool}, InvalidArgument);
  // An enumerator past the table (an op decoded from outside bytes) is no op at all.
  const ir::Op unknown[] = {ir::Unary{static_cast<ir::UnaryOp>(200)},
                            ir::Binary{static_cast<ir::BinaryOp>(200)},
                            ir::BinaryScalar{static_cast<ir::BinaryOp>(200), 1.0},
                            ir::Compare{static_cast<ir::CompareOp>(200)},
                            ir::CompareScalar{static_cast<ir::CompareOp>(200), 1.0},
                            ir::Activation{static_cast<ir::ActivationOp>(200)}};
  for (const ir::Op& op : unknown) {
    for (const DType dtype : kKernelDTypes) {
      EXPECT_FALSE(has_elementwise_kernel(op, dtype));
      EXPECT_THROW(elementwise_kernel(op, dtype, "k"), InvalidArgument);
    }
  }
}

TEST(CudaCEmitter, SignaturesTakeBoolElementsAsBytes) {
  const auto has = [](const std::string& source, const std::string& text) {
    return source.find(text) != std::string::npos;
  };
  const std::string greater =
      elementwise_kernel(ir::Compare{ir::CompareOp::Greater}, DType::F16, "greater");
  EXPECT_TRUE(has(greater,
                  "greater(const unsigned short* a, const unsigned short* b, unsigned char* out, "
                  "long long n)"))
      << greater;
  const std::string where = elementwise_kernel(ir::Where{}, DType::F64, "where");
  EXPECT_TRUE(has(where,
                  "where(const unsigned char* condition, const double* a, const double* b, "
                  "double* out, long long n)"))
      << where;
  EXPECT_TRUE(has(where, "const bool v0 = condition[i] != 0;")) << where;
  const std::string fill = elementwise_kernel(ir::MaskFill{1.0}, DType::Bool, "fill");
  EXPECT_TRUE(has(fill,
                  "fill(const unsigned char* x, const unsigned char* mask, unsigned char* out, "
                  "long long n, float value)"))
      << fill;
  EXPECT_TRUE(has(fill, "out[i] = (unsigned char)")) << fill;
  const std::string to_f64 = elementwise_kernel(ir::Cast{DType::F64}, DType::Bool, "to_f64");
  EXPECT_TRUE(has(to_f64,
                  "to_f64(const unsigned char* x, double* out, long long n, float "
                  "parameter)"))
      << to_f64;
  const std::string is_nan = elementwise_kernel(ir::Unary{ir::UnaryOp::IsNan}, DType::BF16, "n");
  EXPECT_TRUE(has(is_nan,
                  "n(const unsigned short* x, unsigned char* out, long long n, float "
                  "parameter)"))
      << is_nan;
  const std::string rsub =
      elementwise_kernel(ir::BinaryScalar{ir::BinaryOp::Sub, 1.0, true}, DType::F32, "rsub");
  EXPECT_TRUE(has(rsub, "const float v1 = parameter;\n    const float v2 = __fsub_rn(v1, v0);"))
      << rsub;
}

TEST(CudaCEmitter, ConstantsAreExactHexadecimalFloatsOfTheComputeType) {
  const CudaC f32(DType::F32, "");
  f32.constant(std::numbers::sqrt2 / 2);
  f32.constant(-0.0);
  f32.constant(0.1);
  f32.constant(1e-45);  // the smallest subnormal float
  f32.lowest();
  f32.constant(kInf);
  f32.constant(kNaN);
  EXPECT_EQ(f32.statements(),
            "const float v0 = 0x1.6a09e6p-1f;\n"
            "const float v1 = -0x0p+0f;\n"
            "const float v2 = 0x1.99999ap-4f;\n"
            "const float v3 = 0x1p-149f;\n"
            "const float v4 = -0x1.fffffep+127f;\n"
            "const float v5 = __int_as_float(0x7f800000);\n"
            "const float v6 = __int_as_float(0x7fc00000);\n");
  EXPECT_EQ(f32.literal(0.1), "0x1.99999ap-4f");
  const CudaC f64(DType::F64, "");
  f64.constant(std::numbers::sqrt2 / 2);
  f64.constant(0.1);
  f64.constant(-kInf);
  EXPECT_EQ(f64.statements(),
            "const double v0 = 0x1.6a09e667f3bcdp-1;\n"
            "const double v1 = 0x1.999999999999ap-4;\n"
            "const double v2 = __longlong_as_double(0xfff0000000000000LL);\n");
}

TEST(CudaCEmitter, PrimitivesAreOneStatementEach) {
  const CudaC m(DType::F32, "");
  const auto a = m.define("x[i]");
  const auto b = m.define("parameter");
  m.min(a, b);
  m.max(a, b);
  m.mul_add(a, b, a);
  m.add(a, b);
  m.round(a);
  m.select(m.is_nan(a), a, b);
  EXPECT_EQ(m.statements(),
            "const float v0 = x[i];\n"
            "const float v1 = parameter;\n"
            "const float v2 = v1 < v0 ? v1 : v0;\n"
            "const float v3 = v0 < v1 ? v1 : v0;\n"
            "const float v4 = fmaf(v0, v1, v0);\n"
            "const float v5 = __fadd_rn(v0, v1);\n"
            "const float v6 = rintf(v0);\n"
            "const bool v7 = isnan(v0);\n"
            "const float v8 = v7 ? v0 : v1;\n");
  const CudaC d(DType::F64, "");
  d.erfc(d.define("x[i]"));
  EXPECT_EQ(d.statements(), "const double v0 = x[i];\nconst double v1 = erfc(v0);\n");
}

TEST(CudaCEmitter, MasksAreBoolVariables) {
  const CudaC m(DType::F32, "");
  const auto x = m.define("x[i]");
  const auto p = m.define_mask("p[i] != 0");
  const auto q = m.ne(x, x);  // true only where x is NaN
  m.mask_and(p, q);
  m.mask_or(p, q);
  m.mask_xor(p, q);
  const auto not_p = m.mask_not(p);
  const auto chosen = m.select(p, q, not_p);  // a mask chosen between masks stays a mask
  m.select(chosen, x, x);
  EXPECT_EQ(m.statements(),
            "const float v0 = x[i];\n"
            "const bool v1 = p[i] != 0;\n"
            "const bool v2 = v0 != v0;\n"
            "const bool v3 = v1 && v2;\n"
            "const bool v4 = v1 || v2;\n"
            "const bool v5 = v1 != v2;\n"
            "const bool v6 = !v1;\n"
            "const bool v7 = v1 ? v2 : v6;\n"
            "const float v8 = v7 ? v0 : v0;\n");
  EXPECT_TRUE(m.is_mask(chosen));
  EXPECT_FALSE(m.is_mask(x));
}

/// The comparison primitives on doubles: a target of formula::compare.
struct DoubleComparisons {
  static bool eq(double a, double b) { return a == b; }
  static bool ne(double a, double b) { return a != b; }
  static bool lt(double a, double b) { return a < b; }
  static bool le(double a, double b) { return a <= b; }
  static bool gt(double a, double b) { return a > b; }
  static bool ge(double a, double b) { return a >= b; }
};

TEST(CudaCEmitter, KernelParametersAreTheScalarsRoundedToTheDType) {
  const ir::Activation leaky{ir::ActivationOp::LeakyRelu, kAlpha, kBeta};
  EXPECT_EQ(kernel_parameter(leaky, DType::F32), kAlpha);
  EXPECT_EQ(kernel_parameter(ir::Activation{ir::ActivationOp::Softplus, kAlpha, kBeta}, DType::F16),
            kBeta);
  EXPECT_EQ(kernel_parameter(ir::Unary{ir::UnaryOp::Exp}, DType::F32), 0.0);
  const ir::Op add = ir::BinaryScalar{ir::BinaryOp::Add, 0.1};
  EXPECT_EQ(kernel_parameter(add, DType::F64), 0.1);
  EXPECT_EQ(kernel_parameter(add, DType::F32), static_cast<double>(0.1f));
  EXPECT_EQ(kernel_parameter(add, DType::F16), static_cast<double>(static_cast<float>(Half(0.1f))));
  EXPECT_EQ(kernel_parameter(add, DType::BF16),
            static_cast<double>(static_cast<float>(BFloat16(0.1f))));
  // An int64 rounds once, not through double: 2^60 + 2^36 + 1 is just above a tie in f32.
  const int64_t big = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  EXPECT_EQ(kernel_parameter(ir::MaskFill{big}, DType::F32),
            static_cast<double>(detail::convert_element<float>(big)));
  EXPECT_EQ(kernel_parameter(ir::MaskFill{0.25}, DType::Bool), 1.0);
  EXPECT_EQ(kernel_parameter(ir::MaskFill{0.0}, DType::Bool), 0.0);
  EXPECT_EQ(kernel_parameter(ir::CompareScalar{ir::CompareOp::Equal, 0.1}, DType::F32),
            static_cast<double>(0.1f));
  EXPECT_THROW(kernel_parameter(add, DType::I32), InvalidArgument);
  EXPECT_EQ(kernel_parameter(ir::Unary{ir::UnaryOp::Neg}, DType::I32), 0.0);

  // A Bool tensor compares 0 and 1 with the scalar exactly (ndarray's rule): the stand-in that
  // the kernel compares with gives every comparison the same answer.
  const std::vector<Scalar> scalars = {Scalar(-3.0),       Scalar(-0.0),       Scalar(0.0),
                                       Scalar(1e-300),     Scalar(0.5),        Scalar(1.0),
                                       Scalar(1.0000001),  Scalar(7.0),        Scalar(kNaN),
                                       Scalar(kInf),       Scalar(-kInf),      Scalar(int64_t{-2}),
                                       Scalar(int64_t{0}), Scalar(int64_t{1}), Scalar(int64_t{2}),
                                       Scalar(big),        Scalar(false),      Scalar(true)};
  const Device reference = Device::ndarray();
  const TensorData bools(std::vector<bool>{false, true}, Shape{2});
  const TensorHandle x = ops::from_data(bools, reference, TensorKind::Bool);
  for (const ir::CompareOp op : ir::all_ops<ir::CompareOp>()) {
    for (const Scalar& value : scalars) {
      const ir::CompareScalar compare{op, value};
      const double stand_in = kernel_parameter(compare, DType::Bool);
      const std::vector<bool> want =
          ops::into_data(tensor::run_one(compare, {x})).to_vector<bool>();
      for (int b = 0; b <= 1; ++b)
        EXPECT_EQ(formula::compare(DoubleComparisons{}, op, static_cast<double>(b), stand_in),
                  want[b])
            << ir::name(compare) << "(" << b << ", " << value << "): stand-in " << stand_in;
      // Every float type holds the stand-in exactly.
      EXPECT_TRUE(std::isnan(stand_in) || static_cast<double>(static_cast<float>(
                                              Half(static_cast<float>(stand_in)))) == stand_in)
          << stand_in;
    }
  }
}

// ---- NVRTC --------------------------------------------------------------------------------------

class CudaCNvrtc : public testing::TestWithParam<DType> {};

TEST_P(CudaCNvrtc, EveryKernelCompilesForComputeCapability90) {
  EMBER_SKIP_WITHOUT_NVRTC();
#ifdef EMBER_WITH_NVRTC
  const DType dtype = GetParam();
  const std::vector<Kernel> kernels = kernels_on(dtype);
  ASSERT_FALSE(kernels.empty());
  int compiled = 0;
  for (const Kernel& kernel : kernels) {
    const std::string source = elementwise_kernel(kernel.op, dtype, kernel.name);
    const Compiled result = compile(source, kernel.name, "compute_90");
    EXPECT_TRUE(result.ok) << kernel.name << " does not compile:\n"
                           << result.log << "\nits source:\n"
                           << source;
    if (!result.ok) continue;
    EXPECT_NE(result.ptx.find(".entry " + kernel.name), std::string::npos) << kernel.name;
    compiled += result.ptx.size() > 1 ? 1 : 0;
  }
  EXPECT_EQ(compiled, static_cast<int>(kernels.size()));
  std::cout << "[ codegen  ] " << compiled << " " << dtype_name(dtype)
            << " kernels compiled by NVRTC " << nvrtc_version() << "\n";
#endif
}

INSTANTIATE_TEST_SUITE_P(KernelDTypes, CudaCNvrtc, testing::ValuesIn(kKernelDTypes), dtype_label);

TEST(CudaCNvrtcProgram, KernelsOfEveryDTypeConcatenatedCompileAsOneProgram) {
  EMBER_SKIP_WITHOUT_NVRTC();
#ifdef EMBER_WITH_NVRTC
  std::string source;
  std::vector<Kernel> all;
  for (const DType dtype : kKernelDTypes) {
    for (const Kernel& kernel : kernels_on(dtype)) {
      source += elementwise_kernel(kernel.op, dtype, kernel.name);
      all.push_back(kernel);
    }
  }
  const Compiled result = compile(source, "ember_elementwise", "compute_90");
  ASSERT_TRUE(result.ok) << result.log;
  for (const Kernel& kernel : all)
    EXPECT_NE(result.ptx.find(".entry " + kernel.name + "("), std::string::npos) << kernel.name;
#endif
}

// ---- values on a GPU ----------------------------------------------------------------------------

/// Inputs of the one-input ops: the special values, a grid through [-30, 30] by quarters (halves
/// for round's ties), and magnitudes spread over ten decades.
std::vector<double> unary_values() {
  std::vector<double> values = {0.0,   -0.0,   1e-3,  -1e-3,  3.0,  -3.0, 25.0,  -25.0, kInf,
                                -kInf, kNaN,   1.0,   -1.0,   20.0, 20.5, -20.5, 88.5,  -88.5,
                                700.0, -700.0, 1e-40, -1e-40, 2.5,  -2.5, 1e-7,  1e6,   0.1};
  for (int k = 0; k <= 240; ++k)
    values.push_back(-30.0 + 0.25 * k);
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> decade(-6.0, 4.0);
  for (int k = 0; k < 64; ++k)
    values.push_back((k % 2 == 0 ? 1.0 : -1.0) * std::pow(10.0, decade(rng)));
  return values;
}

/// Inputs of the two-input ops: every pair of some special values, then the one-input values
/// against a shuffle of themselves.
std::pair<std::vector<double>, std::vector<double>> binary_values() {
  const std::vector<double> special = {0.0,  -0.0, 1.0,  -1.0,  2.5,  -2.5, 3.0,
                                       -3.0, 25.0, kInf, -kInf, kNaN, 1e-3};
  std::vector<double> a;
  std::vector<double> b;
  for (const double x : special) {
    for (const double y : special) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  std::vector<double> shuffled = unary_values();
  std::mt19937 rng(7);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const std::vector<double> values = unary_values();
  a.insert(a.end(), values.begin(), values.end());
  b.insert(b.end(), shuffled.begin(), shuffled.end());
  return {a, b};
}

/// n Bools, alternating every period elements: periods 1, 2 and 4 together give every triple.
std::vector<double> bool_values(std::size_t n, std::size_t period) {
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = static_cast<double>((i / period) % 2);
  return values;
}

/// The inputs of the kernel of op on dtype: floats from binary_values where two of them meet
/// (Binary, Compare, Where), else from unary_values; Bools alternating with a period of their own.
std::vector<TensorData> kernel_inputs(const ir::Op& op, DType dtype) {
  const bool pairs = std::holds_alternative<ir::Binary>(op) ||
                     std::holds_alternative<ir::Compare>(op) ||
                     std::holds_alternative<ir::Where>(op);
  std::vector<std::vector<double>> floats;
  if (pairs) {
    auto [a, b] = binary_values();
    floats = {std::move(a), std::move(b)};
  } else {
    floats = {unary_values()};
  }
  const std::size_t n = floats.front().size();
  std::vector<TensorData> inputs;
  std::size_t next_float = 0;
  std::size_t period = 1;
  for (const DType d : operand_dtypes(op, dtype)) {
    if (d == DType::Bool) {
      inputs.emplace_back(bool_values(n, period), Shape{static_cast<int64_t>(n)}, d);
      period *= 2;
    } else {
      inputs.emplace_back(floats[next_float++], Shape{static_cast<int64_t>(n)}, d);
    }
  }
  return inputs;
}

/// What ndarray computes for op on inputs.
TensorData reference_of(const ir::Op& op, const std::vector<TensorData>& inputs) {
  const Device reference = Device::ndarray();
  std::vector<TensorHandle> on_reference;
  for (const TensorData& input : inputs)
    on_reference.push_back(ops::from_data(input, reference, kind_of(input.dtype())));
  return ops::into_data(tensor::run(op, on_reference)[0]);
}

// The GPU case's inputs and references, built where no GPU is too.
TEST(CudaCGpuInputs, EveryKernelsInputsHaveAReferenceOnNdarray) {
  for (const DType dtype : kKernelDTypes) {
    for (const Kernel& kernel : kernels_on(dtype)) {
      const std::vector<TensorData> inputs = kernel_inputs(kernel.op, dtype);
      ASSERT_EQ(inputs.size(), operand_dtypes(kernel.op, dtype).size()) << kernel.name;
      const TensorData expected = reference_of(kernel.op, inputs);
      EXPECT_EQ(expected.dtype(), *result_dtype(kernel.op, dtype)) << kernel.name;
      EXPECT_EQ(expected.shape(), inputs.front().shape()) << kernel.name;
    }
  }
}

class CudaCGpu : public testing::TestWithParam<DType> {};

TEST_P(CudaCGpu, KernelsMatchTheNdarrayReference) {
  EMBER_SKIP_WITHOUT_NVRTC();
#ifdef EMBER_WITH_NVRTC
  std::string why;
  const Driver* driver = Driver::get(&why);
  if (driver == nullptr) GTEST_SKIP() << "no GPU to run the kernels on: " << why;
  const DType dtype = GetParam();
  int checked = 0;
  for (const Kernel& kernel : kernels_on(dtype)) {
    const Compiled compiled = compile(elementwise_kernel(kernel.op, dtype, kernel.name),
                                      kernel.name, driver->architecture());
    ASSERT_TRUE(compiled.ok) << kernel.name << " for " << driver->architecture() << ": "
                             << compiled.log;
    const std::vector<TensorData> inputs = kernel_inputs(kernel.op, dtype);
    const DType out_dtype = *result_dtype(kernel.op, dtype);
    // The scalar parameter, where the signature has one (every kernel of one input, MaskFill).
    std::vector<std::vector<std::byte>> extra;
    const bool takes_scalar = inputs.size() == 1 || std::holds_alternative<ir::MaskFill>(kernel.op);
    const double parameter = kernel_parameter(kernel.op, dtype);
    if (takes_scalar)
      extra.push_back(dtype == DType::F64 ? argument_bytes(parameter)
                                          : argument_bytes(static_cast<float>(parameter)));
    std::vector<TensorData> gpu;
    try {
      gpu = run_on_gpu(*driver, compiled.ptx, kernel.name, inputs, {out_dtype},
                       inputs.front().shape(), extra);
    } catch (const std::runtime_error& e) {
      if (is_unsupported_ptx(e))
        GTEST_SKIP() << "the driver (CUDA " << driver->version() << ") cannot load the PTX of "
                     << "NVRTC " << nvrtc_version() << ": " << e.what();
      FAIL() << kernel.name << ": " << e.what();
    }
    const TensorData expected = reference_of(kernel.op, inputs);
    EXPECT_EQ(count_mismatches(kernel.name, gpu[0], expected, inputs, bound_for(dtype)), 0)
        << kernel.name;
    ++checked;
  }
  std::cout << "[ codegen  ] " << checked << " " << dtype_name(dtype)
            << " kernels match ndarray on " << driver->architecture() << "\n";
#endif
}

INSTANTIATE_TEST_SUITE_P(KernelDTypes, CudaCGpu, testing::ValuesIn(kKernelDTypes), dtype_label);

}  // namespace
}  // namespace ember::codegen::test
