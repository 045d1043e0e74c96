// Fuzzes deserialize_npy (the .npy prefix, the header dict parser, the data checks, byte swapping
// and the Fortran-order transpose) and deserialize_npz (the ZIP structures and inflate) on the
// same input: bad input is refused with an ember::Error, and what is accepted survives the
// writer and a second parse unchanged, serialized again to the same bytes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/record/numpy.h"
#include "fuzz_support.h"

namespace {

using ember::fuzz::require;

void fuzz_npy(std::span<const std::byte> input) {
  const auto array = ember::fuzz::parsed_or_refused(
      [&] { return ember::record::deserialize_npy(input, "input"); });
  if (!array) return;
  const std::vector<std::byte> saved = ember::record::serialize_npy(*array);
  const ember::TensorData reloaded = ember::record::deserialize_npy(saved, "saved");
  require(reloaded == *array, "a saved .npy array keeps its dtype, shape and bytes");
  require(ember::record::serialize_npy(reloaded) == saved,
          "a reloaded .npy saves to the same bytes");
}

void fuzz_npz(std::span<const std::byte> input) {
  const auto arrays = ember::fuzz::parsed_or_refused(
      [&] { return ember::record::deserialize_npz(input, "input"); });
  if (!arrays) return;
  const std::vector<std::byte> saved = ember::record::serialize_npz(*arrays);
  const auto reloaded = ember::record::deserialize_npz(saved, "saved");
  require(reloaded.size() == arrays->size(), "a saved .npz keeps its arrays");
  for (std::size_t i = 0; i < reloaded.size(); ++i) {
    require(reloaded[i].name == (*arrays)[i].name,
            "a saved .npz keeps each array's name and order");
    require(reloaded[i].data == (*arrays)[i].data,
            "a saved .npz keeps each array's dtype, shape and bytes");
  }
  require(ember::record::serialize_npz(reloaded) == saved,
          "a reloaded .npz saves to the same bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto input = ember::fuzz::input_bytes(data, size);
  fuzz_npy(input);
  fuzz_npz(input);
  return 0;
}
