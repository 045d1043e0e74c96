// Writing safetensors exactly as the Python package does (see ember/record/safetensors.h).
#include <algorithm>
#include <bit>
#include <string>
#include <string_view>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "failure.h"
#include "safetensors_dtype.h"
#include "safetensors_layout.h"

namespace ember::record {
namespace detail {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors stores values little-endian, as ember keeps them in memory");

constexpr std::string_view kMetadataKey = "__metadata__";
/// Tensor data starts at a multiple of this, so that any element type is aligned.
constexpr std::size_t kHeaderAlignment = 8;

/// save_safetensors' errors; the record alone is at fault, so there is no file to name.
const Failure kFailure("save_safetensors", "");

void check_names(const Record& record) {
  std::unordered_set<std::string_view> seen;
  for (const NamedData& tensor : record.tensors) {
    if (tensor.name == kMetadataKey) kFailure("a tensor may not be called \"", kMetadataKey, "\"");
    if (!seen.insert(tensor.name).second) kFailure("two tensors are called '", tensor.name, "'");
  }
}

/// The record's tensors in the package's order: larger dtypes first, then by name.
std::vector<const NamedData*> file_order(const Record& record) {
  std::vector<const NamedData*> order;
  for (const NamedData& tensor : record.tensors)
    order.push_back(&tensor);
  std::sort(order.begin(), order.end(), [](const NamedData* a, const NamedData* b) {
    const int rank_a = safetensors_rank(a->data.dtype());
    const int rank_b = safetensors_rank(b->data.dtype());
    if (rank_a != rank_b) return rank_a > rank_b;
    return a->name < b->name;  // byte order, as Rust compares strings
  });
  return order;
}

/// `"key":value` of a JSON object, as nlohmann's compact dump writes it.
std::string member(std::string_view key, const nlohmann::ordered_json& value) {
  return nlohmann::ordered_json(key).dump() + ':' + value.dump();
}

/// The compact JSON header, metadata first, then the tensors in file order with consecutive
/// offsets (the package's serde output, field for field). Note: written member by member, not
/// through nlohmann::ordered_json, whose operator[] searches every key (quadratic: 100,000
/// tensors took minutes); check_names already made the names unique.
std::string header_json(const Record& record, const std::vector<const NamedData*>& order) {
  std::string header = "{";
  const auto append = [&](const std::string& text) {
    if (header.size() > 1) header += ',';
    header += text;
  };
  try {
    if (!record.metadata.empty()) append(member(kMetadataKey, record.metadata));
    std::size_t offset = 0;
    for (const NamedData* tensor : order) {
      const std::size_t end = offset + tensor->data.bytes().size();
      nlohmann::ordered_json entry = {{"dtype", safetensors_name(tensor->data.dtype())},
                                      {"shape", tensor->data.shape().dims()},
                                      {"data_offsets", {offset, end}}};
      append(member(tensor->name, entry));
      offset = end;
    }
  } catch (const nlohmann::json::exception& e) {
    kFailure("a tensor name or metadata string is not valid UTF-8 (", e.what(), ")");
  }
  return header + '}';
}

/// The header size (8 bytes, little-endian) and the header padded with spaces to alignment.
std::vector<std::byte> head_bytes(std::string header) {
  header.append((kHeaderAlignment - header.size() % kHeaderAlignment) % kHeaderAlignment, ' ');
  std::vector<std::byte> head(8 + header.size());
  uint64_t size = header.size();
  for (std::size_t i = 0; i < 8; ++i, size >>= 8)
    head[i] = static_cast<std::byte>(size & 0xff);
  std::transform(header.begin(), header.end(), head.begin() + 8,
                 [](char c) { return static_cast<std::byte>(c); });
  return head;
}

}  // namespace

std::vector<std::span<const std::byte>> SafetensorsLayout::pieces() const {
  std::vector<std::span<const std::byte>> all{head};
  all.insert(all.end(), tensors.begin(), tensors.end());
  return all;
}

SafetensorsLayout layout_safetensors(const Record& record) {
  check_names(record);
  const std::vector<const NamedData*> order = file_order(record);
  SafetensorsLayout layout{head_bytes(header_json(record, order)), {}};
  for (const NamedData* tensor : order)
    layout.tensors.push_back(tensor->data.bytes());
  return layout;
}

}  // namespace detail

std::vector<std::byte> serialize_safetensors(const Record& record) {
  const detail::SafetensorsLayout layout = detail::layout_safetensors(record);
  std::vector<std::byte> file;
  for (std::span<const std::byte> piece : layout.pieces())
    file.insert(file.end(), piece.begin(), piece.end());
  return file;
}

}  // namespace ember::record
