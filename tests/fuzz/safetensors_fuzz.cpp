// Fuzzes deserialize_safetensors: bad input is refused with an ember::Error, and a record it
// accepts survives serialize_safetensors and a second parse unchanged (names, dtypes, shapes,
// bytes, metadata), serialized again to the same bytes.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ember/record/safetensors.h"
#include "fuzz_support.h"

namespace {

using ember::TensorData;
using ember::fuzz::require;
using ember::record::Record;

/// The tensors by name: loading keeps the file's order, which saving changes (by dtype size,
/// then name).
std::map<std::string, TensorData> by_name(const Record& record) {
  std::map<std::string, TensorData> tensors;
  for (const auto& [name, data] : record.tensors)
    tensors.emplace(name, data);
  return tensors;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto record = ember::fuzz::parsed_or_refused([&] {
    return ember::record::deserialize_safetensors(ember::fuzz::input_bytes(data, size), "input");
  });
  if (!record) return 0;
  const std::vector<std::byte> saved = ember::record::serialize_safetensors(*record);
  const Record reloaded = ember::record::deserialize_safetensors(saved, "saved");
  require(reloaded.tensors.size() == record->tensors.size(), "a saved record keeps its tensors");
  require(by_name(reloaded) == by_name(*record),
          "a saved record keeps each tensor's name, dtype, shape and bytes");
  require(reloaded.metadata == record->metadata, "a saved record keeps its metadata");
  require(ember::record::serialize_safetensors(reloaded) == saved,
          "a reloaded record saves to the same bytes");
  return 0;
}
