// EMBER_FUSION=0, read once when the backend is built, turns fusion off: every op goes straight
// to the inner backend, with the same values.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "fusion_test_util.h"
#include "support/scoped_env.h"

namespace ember::fusion::test {
namespace {

/// Sets EMBER_FUSION (unset when value is nullopt) for the scope, then restores it.
struct FusionEnvironment : ember::test::ScopedEnv {
  explicit FusionEnvironment(std::optional<std::string> value)
      : ScopedEnv("EMBER_FUSION", std::move(value)) {}
};

TEST(FusionDisabled, OnlyZeroTurnsFusionOff) {
  {
    const FusionEnvironment environment(std::nullopt);
    EXPECT_TRUE(FusionOptions::from_environment().enabled);
  }
  {
    const FusionEnvironment environment("1");
    EXPECT_TRUE(FusionOptions::from_environment().enabled);
  }
  const FusionEnvironment environment("0");
  EXPECT_FALSE(FusionOptions::from_environment().enabled);
}

TEST(FusionDisabled, EveryOpGoesStraightToTheInnerBackend) {
  auto spy = std::make_unique<SpyBackend>(std::make_unique<flex::FlexBackend>());
  SpyBackend& counts = *spy;
  std::optional<FusionBackend> fusion;
  {
    const FusionEnvironment environment("0");
    fusion.emplace(std::move(spy));  // reads the environment now, only now
  }
  EXPECT_FALSE(fusion->options().enabled);
  const TensorData data = varied_data({10, 10});
  const Value y = gelu_from_primitives(*fusion, put(*fusion, data));
  EXPECT_FALSE(is_lazy(y));
  EXPECT_EQ(counts.ops, 9);
  EXPECT_EQ(counts.programs, 0);
  EXPECT_EQ(fusion->cache_stats().misses, 0u);
  flex::FlexBackend eager;
  EXPECT_EQ(get(*fusion, y), get(eager, gelu_from_primitives(eager, put(eager, data))));
}

}  // namespace
}  // namespace ember::fusion::test
