// seeded_permutation and derive_seed, against published generator outputs and counting.
#include "ember/data/permutation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <vector>

namespace ember::data {
namespace {

bool is_permutation_of_iota(std::vector<std::size_t> p) {
  std::sort(p.begin(), p.end());
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] != i) return false;
  }
  return true;
}

TEST(SeededPermutation, IsAPermutation) {
  for (std::size_t n : {0u, 1u, 2u, 7u, 1000u}) {
    EXPECT_EQ(seeded_permutation(n, 11).size(), n);
    EXPECT_TRUE(is_permutation_of_iota(seeded_permutation(n, 11))) << n;
  }
}

TEST(SeededPermutation, SameSeedSameOrderOtherSeedOtherOrder) {
  EXPECT_EQ(seeded_permutation(100, 42), seeded_permutation(100, 42));
  EXPECT_NE(seeded_permutation(100, 42), seeded_permutation(100, 43));
}

TEST(SeededPermutation, DrawsFromMt19937_64) {
  // The first output of std::mt19937_64 seeded 5489 is 14514284786278117030 (even). For n = 2
  // Fisher-Yates swaps position 1 with position (output % 2) = 0.
  EXPECT_EQ(seeded_permutation(2, 5489), (std::vector<std::size_t>{1, 0}));
}

TEST(SeededPermutation, EveryOrderOfThreeIsEquallyLikely) {
  constexpr int kSeeds = 6000;
  std::map<std::vector<std::size_t>, int> counts;
  for (int seed = 0; seed < kSeeds; ++seed)
    ++counts[seeded_permutation(3, seed)];
  ASSERT_EQ(counts.size(), 6u);
  // Each count is Binomial(6000, 1/6): mean 1000, standard deviation 29; 150 is 5 sigma.
  for (const auto& [order, count] : counts)
    EXPECT_NEAR(count, kSeeds / 6, 150);
}

TEST(DeriveSeed, IsSplitMix64OfSeedXorSplitMix64OfStream) {
  // SplitMix64 of 0 is 0xE220A8397B1DCDAF (its published first output from state 0), so
  // derive_seed(0xE220A8397B1DCDAF, 0) = splitmix64(0) = 0xE220A8397B1DCDAF.
  EXPECT_EQ(derive_seed(0xE220A8397B1DCDAFULL, 0), 0xE220A8397B1DCDAFULL);
}

TEST(DeriveSeed, SeparatesNearbySeedsAndStreams) {
  std::set<uint64_t> seen;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    for (uint64_t stream = 0; stream < 10; ++stream)
      seen.insert(derive_seed(seed, stream));
  }
  EXPECT_EQ(seen.size(), 100u);
}

}  // namespace
}  // namespace ember::data
