// Seeded permutations (permutation.h): Fisher-Yates over std::mt19937_64.
#include "ember/data/permutation.h"

#include <numeric>
#include <random>
#include <utility>

namespace ember::data {
namespace {

/// A uniform draw from [0, bound), bound > 0, by rejection: values below 2^64 mod bound are
/// redrawn so that every residue is equally likely (plain x % bound favours small values).
uint64_t uniform_below(std::mt19937_64& engine, uint64_t bound) {
  const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const uint64_t x = engine();
    if (x >= threshold) return x % bound;
  }
}

/// SplitMix64's output function: a bijection of 64-bit words that spreads every input bit.
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<std::size_t> seeded_permutation(std::size_t n, uint64_t seed) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 engine(seed);
  for (std::size_t i = n; i > 1; --i) {
    std::swap(order[i - 1], order[uniform_below(engine, i)]);
  }
  return order;
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  return splitmix64(seed ^ splitmix64(stream));
}

}  // namespace ember::data
