// Fused programs over bf16 and f16 (flex's tile loops compute them in f32 and round each
// instruction's result to its dtype, as the eager kernels round each op's): FusionBackend over
// flex gives eager flex's values bit for bit, for chains mixing narrow and f32 values, scalars,
// comparisons, masks and casts, over one tile and over many (streamed), with broadcast and
// transposed (gathered) narrow inputs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

/// x and y of dtype, both [rows, cols] (y read transposed from a [cols, rows] tensor), a [1, cols]
/// row of dtype and an f32 [rows, cols] z, through a chain of the fusible op families.
std::vector<TensorData> narrow_chain(backend::Backend& backend, DType dtype, int64_t rows,
                                     int64_t cols) {
  const auto narrow_input = [&](const Shape& shape, int seed) {
    return apply(backend, ir::Cast{dtype}, {put(backend, varied_data(shape, seed))});
  };
  const Value x = narrow_input(Shape{rows, cols}, 1);
  const Value y = apply(backend, ir::Permute{{1, 0}}, {narrow_input(Shape{cols, rows}, 2)});
  const Value row =
      apply(backend, ir::Expand{Shape{rows, cols}}, {narrow_input(Shape{1, cols}, 3)});
  const Value z = put(backend, varied_data(Shape{rows, cols}, 4));

  const Value product = apply(backend, ir::Binary{ir::BinaryOp::Mul}, {x, y});
  const Value shifted = apply(backend, ir::BinaryScalar{ir::BinaryOp::Add, 0.3, false}, {product});
  const Value bent = apply(backend, ir::Unary{ir::UnaryOp::Tanh}, {shifted});
  const Value above = apply(backend, ir::CompareScalar{ir::CompareOp::Greater, 0.1}, {x});
  const Value filled = apply(backend, ir::MaskFill{0.7}, {bent, above});
  const Value lower = apply(backend, ir::Compare{ir::CompareOp::Lower}, {x, row});
  const Value picked = apply(backend, ir::Where{}, {lower, filled, row});
  const Value gelu = apply(backend, ir::Activation{ir::ActivationOp::GeluTanh}, {picked});
  const Value wide = apply(backend, ir::Cast{DType::F32}, {gelu});
  const Value sum = apply(backend, ir::Binary{ir::BinaryOp::Add}, {wide, z});
  const Value back = apply(backend, ir::Cast{dtype}, {sum});
  return {get(backend, back), get(backend, sum), get(backend, above)};
}

class FusionNarrowChain : public ::testing::TestWithParam<DType> {};

TEST_P(FusionNarrowChain, OneTileGivesEagerFlexBits) {
  expect_fused_flex_gives_eager_bits(
      [&](backend::Backend& backend) { return narrow_chain(backend, GetParam(), 7, 33); });
}

TEST_P(FusionNarrowChain, ManyStreamedTilesGiveEagerFlexBits) {
  // 2.6M elements: a thousand tiles, and more traffic than the streaming threshold.
  expect_fused_flex_gives_eager_bits(
      [&](backend::Backend& backend) { return narrow_chain(backend, GetParam(), 640, 4099); });
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FusionNarrowChain, ::testing::Values(DType::BF16, DType::F16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember::fusion::test
