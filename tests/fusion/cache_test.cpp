// The program cache: keyed by the relative shape of the op graph, so a loop over fresh data
// builds its programs once, sizes with the same broadcast pattern share a program, scalar
// values are constants, and anything that changes the program (broadcast pattern, rank, which
// results are held) builds another. The programs here hold two ops: a lone small op runs
// without a program (lone_op_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

/// -(lhs + rhs) on backend, read back.
TensorData add(backend::Backend& backend, const Shape& lhs, const Shape& rhs) {
  const Value sum = apply(backend, ir::Binary{ir::BinaryOp::Add},
                          {put(backend, varied_data(lhs, 1)), put(backend, varied_data(rhs, 2))});
  return get(backend, apply(backend, ir::Unary{ir::UnaryOp::Neg}, {sum}));
}

TEST(FusionCache, ALoopOverFreshDataBuildsItsProgramOnce) {
  FusionBackend fusion(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  flex::FlexBackend eager;
  for (int step = 0; step < 5; ++step) {
    const TensorData data = varied_data({32, 48}, step);
    const TensorData fused = get(fusion, gelu_from_primitives(fusion, put(fusion, data)));
    EXPECT_EQ(fused, get(eager, gelu_from_primitives(eager, put(eager, data)))) << "step " << step;
  }
  EXPECT_EQ(fusion.cache_stats().misses, 1u);
  EXPECT_EQ(fusion.cache_stats().hits, 4u);
}

TEST(FusionCache, SizesWithTheSameBroadcastPatternShareAProgram) {
  FusionBackend fusion(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  flex::FlexBackend eager;
  EXPECT_EQ(add(fusion, {8, 16}, {1, 16}), add(eager, {8, 16}, {1, 16}));
  EXPECT_EQ(add(fusion, {3, 40}, {1, 40}), add(eager, {3, 40}, {1, 40}));
  EXPECT_EQ(fusion.cache_stats().misses, 1u);
  EXPECT_EQ(fusion.cache_stats().hits, 1u);
}

TEST(FusionCache, ADifferentBroadcastPatternOrRankBuildsAnotherProgram) {
  FusionBackend fusion(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  flex::FlexBackend eager;
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{8, 16}, {1, 16}}, {{8, 16}, {8, 1}}, {{8, 16}, {8, 16}}, {{2, 8, 16}, {1, 16}}};
  for (const auto& [lhs, rhs] : cases)
    EXPECT_EQ(add(fusion, lhs, rhs), add(eager, lhs, rhs));
  EXPECT_EQ(fusion.cache_stats().misses, 4u);
  EXPECT_EQ(fusion.cache_stats().hits, 0u);
}

TEST(FusionCache, ScalarValuesAreConstantsOfOneProgram) {
  FusionBackend fusion(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  const TensorData data = varied_data({6, 7});
  for (const double factor : {0.25, 3.0, -1.5}) {
    const Value scaled =
        apply(fusion, ir::Unary{ir::UnaryOp::Neg},
              {apply(fusion, ir::BinaryScalar{ir::BinaryOp::Mul, factor}, {put(fusion, data)})});
    std::vector<float> expected = data.to_vector<float>();
    for (float& v : expected)
      v = -(v * static_cast<float>(factor));
    EXPECT_EQ(get(fusion, scaled).to_vector<float>(), expected) << "factor " << factor;
  }
  EXPECT_EQ(fusion.cache_stats().misses, 1u);
  EXPECT_EQ(fusion.cache_stats().hits, 2u);
}

TEST(FusionCache, WhichResultsAreHeldIsPartOfTheProgram) {
  FusionBackend fusion(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  const Value x = put(fusion, varied_data({4, 4}));
  const Value e = apply(fusion, ir::Unary{ir::UnaryOp::Exp}, {x});
  get(fusion, apply(fusion, ir::Unary{ir::UnaryOp::Tanh}, {e}));  // e held: two outputs
  const Value tanh_only = apply(fusion, ir::Unary{ir::UnaryOp::Tanh},
                                {apply(fusion, ir::Unary{ir::UnaryOp::Exp}, {x})});
  get(fusion, tanh_only);  // one output
  EXPECT_EQ(fusion.cache_stats().misses, 2u);
}

}  // namespace
}  // namespace ember::fusion::test
