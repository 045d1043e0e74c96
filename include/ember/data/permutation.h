// Seeded permutations for shuffling. They are computed with std::mt19937_64 (whose output the
// C++ standard fixes) and an unbiased bounded draw written here, not std::shuffle or
// std::uniform_int_distribution (whose algorithms are implementation-defined): a seed gives the
// same order with every compiler and standard library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ember::data {

/// A permutation of 0, ..., n - 1 drawn uniformly (Fisher-Yates) from seed.
std::vector<std::size_t> seeded_permutation(std::size_t n, uint64_t seed);

/// A seed for the stream-th independent use of seed (e.g. one per epoch): a SplitMix64 mix of
/// both, so that nearby seeds and streams give unrelated permutations.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

}  // namespace ember::data
