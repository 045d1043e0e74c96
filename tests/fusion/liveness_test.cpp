// Liveness: a fused pass writes only the results still held outside the queue (by the user, or
// by anything else keeping the buffer), plus a value one program hands to another; ops nobody
// holds are never computed. A spy inner backend counts the outputs it writes.
#include <gtest/gtest.h>

#include <vector>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

TEST(FusionLiveness, AGeluChainHoldingOnlyItsResultWritesOneOutput) {
  SpiedFusion spied;
  const TensorData data = varied_data({64, 100});
  const Value y = gelu_from_primitives(*spied.fusion, put(*spied.fusion, data));
  EXPECT_EQ(spied.spy->outputs_written, 0);  // queued, nothing ran yet
  const TensorData result = get(*spied.fusion, y);
  EXPECT_EQ(spied.spy->programs, 1);
  EXPECT_EQ(spied.spy->ops, 0);
  EXPECT_EQ(spied.spy->outputs_written, 1);
  // The same function as the reference's GELU activation (tanh form), an independent formula.
  ndarray::NdArrayBackend reference;
  const Value expected =
      apply(reference, ir::Activation{ir::ActivationOp::GeluTanh}, {put(reference, data)});
  std::string why;
  EXPECT_TRUE(result.approx_equal(get(reference, expected), Tolerance::for_dtype(DType::F32), &why))
      << why;
}

TEST(FusionLiveness, HeldIntermediatesAreWrittenToo) {
  SpiedFusion spied;
  const TensorData data = varied_data({16, 30});
  std::vector<Value> intermediates;
  const Value y = gelu_from_primitives(*spied.fusion, put(*spied.fusion, data), &intermediates);
  intermediates.resize(2);  // keep x^2 and x^3 only
  get(*spied.fusion, y);
  EXPECT_EQ(spied.spy->programs, 1);
  EXPECT_EQ(spied.spy->outputs_written, 3);
  // Reading them runs nothing more, and gives x * x and x * x * x.
  ndarray::NdArrayBackend reference;
  const Value x = put(reference, data);
  const Value square = apply(reference, ir::Binary{ir::BinaryOp::Mul}, {x, x});
  const Value cube = apply(reference, ir::Binary{ir::BinaryOp::Mul}, {square, x});
  EXPECT_EQ(get(*spied.fusion, intermediates[0]), get(reference, square));
  EXPECT_EQ(get(*spied.fusion, intermediates[1]), get(reference, cube));
  EXPECT_EQ(spied.spy->programs, 1);
}

TEST(FusionLiveness, OpsNobodyHoldsAreNeverComputed) {
  SpiedFusion spied;
  const Value x = put(*spied.fusion, varied_data({8, 8}));
  apply(*spied.fusion, ir::Unary{ir::UnaryOp::Exp}, {x});  // result dropped at once
  spied.fusion->flush();
  EXPECT_EQ(spied.spy->programs, 0);
  EXPECT_EQ(spied.spy->outputs_written, 0);
}

TEST(FusionLiveness, AValueOneProgramHandsToAnotherIsStoredOnce) {
  // tanh and mul run over [4, 1], add broadcasts the product into [4, 5]: a program, then the add
  // alone (as one op), and the product (nobody holds it) is stored once, for the add; tanh's
  // result is not.
  SpiedFusion spied;
  const TensorData column = varied_data({4, 1}, 1);
  const TensorData matrix = varied_data({4, 5}, 2);
  const auto compute = [&](backend::Backend& backend) {
    Value sum;
    {
      const Value u = apply(backend, ir::BinaryScalar{ir::BinaryOp::Mul, 2.0},
                            {apply(backend, ir::Unary{ir::UnaryOp::Tanh}, {put(backend, column)})});
      sum = apply(backend, ir::Binary{ir::BinaryOp::Add}, {u, put(backend, matrix)});
    }  // only the sum is held now
    return get(backend, sum);
  };
  const TensorData fused = compute(*spied.fusion);
  EXPECT_EQ(spied.spy->programs, 1);
  EXPECT_EQ(spied.spy->ops, 1);
  EXPECT_EQ(spied.spy->outputs_written, 2);
  flex::FlexBackend eager;
  EXPECT_EQ(fused, compute(eager));
}

}  // namespace
}  // namespace ember::fusion::test
