// f32 <-> bf16 conversions inline, bit for bit those of ember::BFloat16 (round to nearest even,
// overflow to infinity, a NaN's payload narrowed as BFloat16 narrows it), without branches: the
// constructor lives in another library and is called once per element, which made the
// conversions of an autocast step cost more than its products; these loops vectorize.
#pragma once

#include <bit>
#include <cstdint>

#include "ember/float16.h"

namespace ember::flex {

/// BFloat16(value), computed here.
inline BFloat16 to_bfloat16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  // Adding just under half of the dropped part, plus the kept part's last bit, carries into the
  // kept part exactly when nearest-even rounds up.
  const uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  // A NaN keeps the payload's high bits, or gets the quiet bit when only dropped bits were set.
  const uint32_t truncated = bits >> 16;
  const uint32_t nan = truncated | ((truncated & 0x7Fu) == 0 ? 0x40u : 0u);
  const bool is_nan = (bits & 0x7FFF'FFFFu) > 0x7F80'0000u;
  return BFloat16::from_bits(static_cast<uint16_t>(is_nan ? nan : rounded));
}

/// float(value): bf16 is the upper half of an f32.
inline float from_bfloat16(BFloat16 value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value.bits) << 16);
}

}  // namespace ember::flex
