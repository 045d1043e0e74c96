// Programs whose traffic exceeds flex's streaming threshold (fused.cpp: 32 MiB) store their
// outputs with streaming stores (through staging slots, or from the registers of a compiled
// program): they must still give eager flex's values bit for bit, with several outputs, a Bool
// one, and lengths that end inside a vector.
#include <gtest/gtest.h>

#include <vector>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

/// GELU from primitives with its cube and a comparison kept: three outputs (F32, F32, Bool).
std::vector<TensorData> gelu_with_kept_values(backend::Backend& backend, const TensorData& data) {
  const Value x = put(backend, data);
  std::vector<Value> intermediates;
  const Value y = gelu_from_primitives(backend, x, &intermediates);
  const Value cube = intermediates.at(1);
  intermediates.clear();  // the other intermediates die unstored
  const Value positive = apply(backend, ir::CompareScalar{ir::CompareOp::Greater, 0.0}, {y});
  return {get(backend, y), get(backend, cube), get(backend, positive)};
}

TEST(FusionStreaming, LargeProgramsGiveEagerValuesBitForBit) {
  // 4.7M elements: 19 MB read, 42 MB written; 1537 elements a row, so no length is a whole
  // number of vectors.
  const TensorData data = varied_data({3, 1023, 1537}, 5);
  expect_fused_flex_gives_eager_bits(
      [&](backend::Backend& backend) { return gelu_with_kept_values(backend, data); });
}

TEST(FusionStreaming, LargeF32ProgramsGiveEagerValuesBitForBit) {
  // F32 outputs only: flex runs the program as compiled code (jit_program.h) where the CPU
  // allows, storing straight from registers past the caches, and the tail of each row's last
  // vector through the tile interpreter.
  const TensorData data = varied_data({3, 1023, 1537}, 6);
  const auto run = [&](backend::Backend& backend) {
    const Value x = put(backend, data);
    std::vector<Value> intermediates;
    const Value y = gelu_from_primitives(backend, x, &intermediates);
    const Value cube = intermediates.at(1);
    intermediates.clear();
    return std::vector<TensorData>{get(backend, y), get(backend, cube)};
  };
  expect_fused_flex_gives_eager_bits(run);
}

}  // namespace
}  // namespace ember::fusion::test
