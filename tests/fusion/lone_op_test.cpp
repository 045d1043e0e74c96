// A queue (or a group) holding one small op skips the fused program: the op runs through the
// inner backend's execute. It gives the values of the fused path, fails with the same kind of
// error (ExecutionError from the call that executed the queue, naming the op), and larger lone
// ops still run as fused programs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

/// Expects get(backend, value) to throw ExecutionError whose message holds part.
void expect_read_error(backend::Backend& backend, const Value& value, const std::string& part) {
  try {
    get(backend, value);
    ADD_FAILURE() << "no ExecutionError";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

/// Expects actual to match op computed by the ndarray reference backend on data.
void expect_reference_values(const TensorData& actual, const ir::Op& op,
                             const std::vector<TensorData>& data) {
  ndarray::NdArrayBackend reference;
  std::vector<Value> inputs;
  for (const TensorData& d : data)
    inputs.push_back(put(reference, d));
  const TensorData expected = get(reference, apply(reference, op, inputs));
  std::string why;
  EXPECT_TRUE(actual.approx_equal(expected, Tolerance::for_dtype(actual.dtype()), &why))
      << ir::name(op) << ": " << why;
}

TEST(FusionLoneOp, ASmallLoneOpRunsEagerlyWithTheReferenceValues) {
  const TensorData x = varied_data({3, 4});
  const TensorData row = varied_data({1, 4}, 5);
  const TensorData one = varied_data({1}, 9);
  const std::vector<std::pair<ir::Op, std::vector<TensorData>>> cases = {
      {ir::Unary{ir::UnaryOp::Exp}, {x}},
      {ir::Binary{ir::BinaryOp::Add}, {x, row}},
      {ir::Binary{ir::BinaryOp::Mul}, {one, x}},
      {ir::BinaryScalar{ir::BinaryOp::Sub, 1.5, /*scalar_lhs=*/true}, {x}},
      {ir::Compare{ir::CompareOp::Lower}, {x, row}},
      {ir::Activation{ir::ActivationOp::Gelu}, {x}},
  };
  for (const auto& [op, data] : cases) {
    SpiedFusion spied;
    std::vector<Value> inputs;
    for (const TensorData& d : data)
      inputs.push_back(put(*spied.fusion, d));
    const Value y = apply(*spied.fusion, op, inputs);
    EXPECT_TRUE(is_lazy(y)) << ir::name(op);
    const TensorData values = get(*spied.fusion, y);
    EXPECT_EQ(spied.spy->programs, 0) << ir::name(op);
    EXPECT_EQ(spied.spy->ops, 1) << ir::name(op);
    expect_reference_values(values, op, data);
  }
}

TEST(FusionLoneOp, ALoneOpGivesTheValuesOfTheFusedPath) {
  // The same op once alone and once in a program (beside a second op of its shape).
  const TensorData x = varied_data({4, 6});
  const ir::Unary tanh{ir::UnaryOp::Tanh};
  SpiedFusion lone;
  const Value alone = apply(*lone.fusion, tanh, {put(*lone.fusion, x)});
  const TensorData alone_values = get(*lone.fusion, alone);
  SpiedFusion fused;
  const Value in_program = apply(*fused.fusion, tanh, {put(*fused.fusion, x)});
  const Value other = apply(*fused.fusion, ir::Unary{ir::UnaryOp::Neg}, {in_program});
  const TensorData program_values = get(*fused.fusion, in_program);
  EXPECT_EQ(lone.spy->programs, 0);
  EXPECT_EQ(fused.spy->programs, 1);
  EXPECT_EQ(alone_values, program_values);
}

TEST(FusionLoneOp, AFailingLoneOpSurfacesAsExecutionErrorFromTheExecutingCall) {
  SpiedFusion spied;
  spied.spy->fail_on = "tanh";
  const Value y =
      apply(*spied.fusion, ir::Unary{ir::UnaryOp::Tanh}, {put(*spied.fusion, varied_data({5}))});
  try {
    spied.fusion->sync();
    ADD_FAILURE() << "no ExecutionError";
  } catch (const ExecutionError& e) {
    EXPECT_EQ(std::string(e.what()), "[fusion] queued tanh failed: spy failure in tanh");
  }
  // The result fails the same way when read, and the queue works again.
  expect_read_error(*spied.fusion, y, "spy failure in tanh");
  spied.spy->fail_on.reset();
  const Value x = put(*spied.fusion, varied_data({5}));
  const Value negated = apply(*spied.fusion, ir::Unary{ir::UnaryOp::Neg}, {x});
  std::vector<float> expected = varied_data({5}).to_vector<float>();
  for (float& v : expected)
    v = -v;
  EXPECT_EQ(get(*spied.fusion, negated).to_vector<float>(), expected);
}

TEST(FusionLoneOp, ALargeLoneOpStillRunsAsAProgram) {
  SpiedFusion spied;
  const TensorData x = varied_data({256, 256});
  const Value y = apply(*spied.fusion, ir::Unary{ir::UnaryOp::Exp}, {put(*spied.fusion, x)});
  const TensorData values = get(*spied.fusion, y);
  EXPECT_EQ(spied.spy->programs, 1);
  EXPECT_EQ(spied.spy->ops, 0);
  expect_reference_values(values, ir::Unary{ir::UnaryOp::Exp}, {x});
}

TEST(FusionLoneOp, AGroupOfOneSmallOpBesideAProgramRunsEagerly) {
  // tanh and mul over [4, 5] form a program; the broadcast add over [3, 4, 5] is alone.
  SpiedFusion spied;
  const TensorData x = varied_data({4, 5});
  const TensorData z = varied_data({3, 4, 5}, 3);
  const Value t = apply(*spied.fusion, ir::Unary{ir::UnaryOp::Tanh}, {put(*spied.fusion, x)});
  const Value m = apply(*spied.fusion, ir::BinaryScalar{ir::BinaryOp::Mul, 2.0}, {t});
  const Value sum = apply(*spied.fusion, ir::Binary{ir::BinaryOp::Add}, {m, put(*spied.fusion, z)});
  const TensorData values = get(*spied.fusion, sum);
  EXPECT_EQ(spied.spy->programs, 1);
  EXPECT_EQ(spied.spy->ops, 1);
  ndarray::NdArrayBackend reference;
  const Value expected =
      apply(reference, ir::Binary{ir::BinaryOp::Add},
            {apply(reference, ir::BinaryScalar{ir::BinaryOp::Mul, 2.0},
                   {apply(reference, ir::Unary{ir::UnaryOp::Tanh}, {put(reference, x)})}),
             put(reference, z)});
  std::string why;
  EXPECT_TRUE(values.approx_equal(get(reference, expected), Tolerance::for_dtype(DType::F32), &why))
      << why;
}

}  // namespace
}  // namespace ember::fusion::test
