// Fuzzes decode_idx (plain and gzip IDX images): bad input is refused with an ember::Error, and
// a tensor it accepts decodes back unchanged from encode_idx's plain and gzip images; a plain
// image, which has a single encoding, re-encodes to its own bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ember/data/idx.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using ember::fuzz::require;
  const std::span<const std::byte> input = ember::fuzz::input_bytes(data, size);
  const auto tensor =
      ember::fuzz::parsed_or_refused([&] { return ember::data::decode_idx(input, "input"); });
  if (!tensor) return 0;
  const std::vector<std::byte> plain = ember::data::encode_idx(*tensor, false);
  const std::vector<std::byte> gzip = ember::data::encode_idx(*tensor, true);
  require(ember::data::decode_idx(plain, "plain") == *tensor, "decode(encode(t)) == t (plain)");
  require(ember::data::decode_idx(gzip, "gzip") == *tensor, "decode(encode(t)) == t (gzip)");
  // A plain image starts with two zero bytes; a gzip image with gzip's magic.
  if (input[0] == std::byte{0}) {
    require(std::ranges::equal(plain, input), "a plain image re-encodes to its own bytes");
  }
  return 0;
}
