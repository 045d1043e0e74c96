// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), the generator of random tensors, taken from Random123 (Debian's librandom123-dev).
// cuRAND's curand_Philox4x32_10 computes the same function, so a GPU backend draws the same
// bits. Random123's headers compile cleanly under -Wall -Wextra -Werror (g++ 12, clang 14).
#pragma once

#include <array>
#include <cstdint>

#include <Random123/philox.h>

namespace ember::ir {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

/// Philox4x32-10's rounds, the multipliers of a round's two products (of counter words 0 and 2)
/// and the Weyl increments of the key's two words between rounds: Random123's, named here for
/// the shader kernels that spell them as literals (backends/shader/random_text.h).
inline constexpr int kPhiloxRounds = 10;
inline constexpr std::array<uint32_t, 2> kPhiloxMultipliers = {PHILOX_M4x32_0, PHILOX_M4x32_1};
inline constexpr std::array<uint32_t, 2> kPhiloxKeySteps = {PHILOX_W32_0, PHILOX_W32_1};

/// The 128-bit block Philox4x32-10 maps counter to under key, words in Random123's order (the
/// order of its known-answer vectors).
inline std::array<uint32_t, 4> philox4x32_10(const PhiloxCounter& counter, const PhiloxKey& key) {
  using Philox = r123::Philox4x32_R<kPhiloxRounds>;
  const Philox::ctr_type block =
      Philox{}(Philox::ctr_type{{counter[0], counter[1], counter[2], counter[3]}},
               Philox::key_type{{key[0], key[1]}});
  return {block[0], block[1], block[2], block[3]};
}

}  // namespace ember::ir
