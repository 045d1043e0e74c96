// The decorator queues exactly what the inner backend declares it fuses (backend::FusionSupport:
// dtypes, largest rank, which ops) and never an op that can fail on its data; the rest runs at
// once. A queued value is lazy; one run at once is the inner backend's own buffer.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

constexpr std::size_t kAnyRank = std::numeric_limits<std::size_t>::max();

/// A FusionBackend over ndarray declaring support, its programs run op by op.
FusionBackend over_ndarray(backend::FusionSupport support) {
  return FusionBackend(
      std::make_unique<SpyBackend>(std::make_unique<ndarray::NdArrayBackend>(), support),
      FusionOptions{});
}

Value integers(backend::Backend& backend, std::vector<int32_t> values) {
  const auto n = static_cast<int64_t>(values.size());
  return put(backend, TensorData(std::move(values), Shape{n}));
}

TEST(FusionSupport, ABackendDeclaringNothingGetsNothingQueued) {
  FusionBackend fusion = over_ndarray({});
  const Value x = put(fusion, varied_data({4, 4}));
  EXPECT_FALSE(is_lazy(apply(fusion, kTanh, {x})));
}

TEST(FusionSupport, OnlyTheDeclaredDtypesAreQueued) {
  FusionBackend fusion = over_ndarray({.dtypes = {DType::F32}, .max_rank = kAnyRank});
  const Value x = put(fusion, varied_data({4, 4}));
  const Value y = apply(fusion, kTanh, {x});
  EXPECT_TRUE(is_lazy(y));
  // Bool is not declared: a comparison's result is computed at once.
  EXPECT_FALSE(is_lazy(apply(fusion, ir::CompareScalar{ir::CompareOp::Greater, 0.0}, {y})));
}

TEST(FusionSupport, ShapesAboveTheDeclaredRankRunAtOnce) {
  FusionBackend fusion = over_ndarray({.dtypes = {DType::F32}, .max_rank = 2});
  EXPECT_TRUE(is_lazy(apply(fusion, kTanh, {put(fusion, varied_data({3, 4}))})));
  EXPECT_FALSE(is_lazy(apply(fusion, kTanh, {put(fusion, varied_data({2, 3, 4}))})));
}

TEST(FusionSupport, TheOpPredicateChoosesWhichOpsAreQueued) {
  backend::FusionSupport support{.dtypes = {DType::F32}, .max_rank = kAnyRank};
  support.fuses_op = [](const ir::Op& op) { return !std::holds_alternative<ir::Unary>(op); };
  FusionBackend fusion = over_ndarray(support);
  const Value x = put(fusion, varied_data({4, 4}));
  EXPECT_FALSE(is_lazy(apply(fusion, kTanh, {x})));
  EXPECT_TRUE(is_lazy(apply(fusion, ir::Binary{ir::BinaryOp::Add}, {x, x})));
}

TEST(FusionSupport, IntegerOpsThatCanFailOnTheirDataStayEager) {
  FusionBackend fusion = over_ndarray({.dtypes = {DType::I32}, .max_rank = kAnyRank});
  const Value a = integers(fusion, {7, -7, 9});
  const Value b = integers(fusion, {2, 2, 0});
  EXPECT_TRUE(is_lazy(apply(fusion, ir::Binary{ir::BinaryOp::Add}, {a, b})));
  // Division by the zero in b throws at the call, not at a later read.
  EXPECT_THROW(apply(fusion, ir::Binary{ir::BinaryOp::Div}, {a, b}), InvalidArgument);
  EXPECT_THROW(apply(fusion, ir::BinaryScalar{ir::BinaryOp::Rem, 0}, {a}), InvalidArgument);
  EXPECT_FALSE(is_lazy(apply(fusion, ir::BinaryScalar{ir::BinaryOp::Pow, 2}, {a})));
}

TEST(FusionSupport, QueuedIntegerOpsGiveTheInnerBackendsValues) {
  FusionBackend fusion = over_ndarray({.dtypes = {DType::I32}, .max_rank = kAnyRank});
  const Value a = integers(fusion, {7, -7, 9});
  const Value sum = apply(fusion, ir::Binary{ir::BinaryOp::Add}, {a, a});
  const Value product = apply(fusion, ir::BinaryScalar{ir::BinaryOp::Mul, 3}, {sum});
  ASSERT_TRUE(is_lazy(product));
  EXPECT_EQ(get(fusion, product), TensorData(std::vector<int32_t>{42, -42, 54}, Shape{3}));
}

TEST(FusionSupport, ExpandsAreQueuedOnlyWhereTheBackendReadsThemAsBroadcastInputs) {
  const ir::Expand expand{Shape{3, 4}};
  backend::FusionSupport support{.dtypes = {DType::F32}, .max_rank = kAnyRank};
  FusionBackend copies = over_ndarray(support);
  EXPECT_FALSE(is_lazy(apply(copies, expand, {put(copies, varied_data({3, 1}))})));
  support.fuses_expand = true;
  FusionBackend broadcasts = over_ndarray(support);
  EXPECT_TRUE(is_lazy(apply(broadcasts, expand, {put(broadcasts, varied_data({3, 1}))})));
}

TEST(FusionSupport, QueuedExpandsGiveTheInnerBackendsValuesAtEveryShape) {
  backend::FusionSupport support{.dtypes = {DType::F32}, .max_rank = kAnyRank};
  support.fuses_expand = true;
  FusionBackend fusion = over_ndarray(support);
  ndarray::NdArrayBackend reference;
  // The same graph at two sizes: one cached program, its expand run at each execution's shape.
  for (const int64_t rows : {3, 5}) {
    const auto computation = [&](backend::Backend& backend) {
      const Value column = put(backend, varied_data({rows, 1}, 1));
      const Value x = put(backend, varied_data({rows, 4}, 2));
      const Value spread = apply(backend, ir::Expand{Shape{rows, 4}}, {column});
      const Value product = apply(backend, ir::Binary{ir::BinaryOp::Mul}, {spread, x});
      return std::vector<TensorData>{get(backend, apply(backend, kTanh, {product})),
                                     get(backend, spread)};
    };
    const std::vector<TensorData> expected = computation(reference);
    const std::vector<TensorData> actual = computation(fusion);
    EXPECT_EQ(actual[0], expected[0]) << rows << " rows";
    EXPECT_EQ(actual[1], expected[1]) << rows << " rows";
  }
  EXPECT_EQ(fusion.cache_stats().misses, 1u) << "both sizes share one program";
}

}  // namespace
}  // namespace ember::fusion::test
