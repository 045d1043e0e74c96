// Reading safetensors (see ember/record/safetensors.h): every field of the header is checked, and
// the tensors' byte ranges must tile the data buffer, before any tensor is built.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "ember/error.h"
#include "ember/record/safetensors.h"
#include "failure.h"
#include "safetensors_dtype.h"

namespace ember::record {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors stores values little-endian, as ember keeps them in memory");

using Json = nlohmann::json;

constexpr std::string_view kMetadataKey = "__metadata__";
/// The package refuses larger headers (MAX_HEADER_SIZE), so no valid file has one.
constexpr uint64_t kMaxHeaderSize = 100'000'000;

/// A tensor's header entry, checked.
struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin;
  uint64_t end;
};

/// value for a message: scalars and short flat arrays as JSON (cut at 64 characters), anything
/// else by its type (a corrupt header may nest deeper than printing could recurse).
std::string describe(const Json& value) {
  constexpr std::size_t kLongest = 64;
  const bool flat_array =
      value.is_array() && value.size() <= 8 &&
      std::none_of(value.begin(), value.end(), [](const Json& v) { return v.is_structured(); });
  if (value.is_object()) return "an object";
  if (value.is_array() && !flat_array) return "an array of " + std::to_string(value.size());
  std::string text = value.dump();
  if (text.size() > kLongest) text = text.substr(0, kLongest) + "...";
  return text;
}

using detail::Failure;

uint64_t read_header_size(std::span<const std::byte> file, const Failure& fail) {
  if (file.size() < 8)
    fail(file.size(), " bytes is shorter than the 8-byte header size that starts the format");
  uint64_t size = 0;
  for (std::size_t i = 0; i < 8; ++i)
    size |= std::to_integer<uint64_t>(file[i]) << (8 * i);
  if (size > file.size() - 8)
    fail("header size ", size, " is larger than the ", file.size() - 8, " bytes after it");
  if (size > kMaxHeaderSize) fail("header size ", size, " is over the limit of ", kMaxHeaderSize);
  return size;
}

/// A SAX handler that finds the first key repeated within one object, which a JSON parser would
/// silently resolve (the last one wins). A pass of its own: nlohmann's callback parser, which
/// could report keys while building the document, scans the enclosing object at every object's
/// end, quadratic in the number of tensors (32,000 took 8 s).
class DuplicateKeyFinder : public nlohmann::json_sax<Json> {
 public:
  const std::string& duplicate() const { return duplicate_; }

  bool start_object(std::size_t /*size*/) override {
    open_objects_.emplace_back();
    return true;
  }
  bool end_object() override {
    open_objects_.pop_back();
    return true;
  }
  bool key(string_t& key) override {
    if (!open_objects_.back().insert(key).second && duplicate_.empty()) duplicate_ = key;
    return duplicate_.empty();
  }
  bool null() override { return true; }
  bool boolean(bool /*value*/) override { return true; }
  bool number_integer(number_integer_t /*value*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*value*/) override { return true; }
  bool number_float(number_float_t /*value*/, const string_t& /*text*/) override { return true; }
  bool string(string_t& /*value*/) override { return true; }
  bool binary(binary_t& /*value*/) override { return true; }
  bool start_array(std::size_t /*size*/) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) override {
    return false;  // the document parse, which ran first, reports syntax errors
  }

 private:
  std::vector<std::unordered_set<std::string>> open_objects_;
  std::string duplicate_;
};

/// The header as JSON; fails on a syntax error, on invalid UTF-8, when it is not an object, and
/// on a key repeated in one object. Each pass is linear in the header's size (hashing the keys).
Json parse_header(std::string_view text, const Failure& fail) {
  if (!text.starts_with('{')) fail("the header is not a JSON object (it must start with '{')");
  Json header;
  try {
    header = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    fail("the header is not valid JSON: ", e.what());
  }
  if (!header.is_object()) fail("the header is not a JSON object");
  DuplicateKeyFinder finder;
  Json::sax_parse(text.begin(), text.end(), &finder);
  if (!finder.duplicate().empty()) fail("the header has the key '", finder.duplicate(), "' twice");
  return header;
}

std::map<std::string, std::string> parse_metadata(const Json& metadata, const Failure& fail) {
  if (!metadata.is_object()) fail("\"", kMetadataKey, "\" is not an object");
  std::map<std::string, std::string> strings;
  for (const auto& [key, value] : metadata.items()) {
    if (!value.is_string())
      fail("\"", kMetadataKey, "\" entry '", key, "' is ", describe(value), ", not a string");
    strings[key] = value.get<std::string>();
  }
  return strings;
}

/// entry[field]; fails when it is missing.
const Json& field_of(const Json& entry, const char* field, const std::string& name,
                     const Failure& fail) {
  const auto it = entry.find(field);
  if (it == entry.end()) fail("tensor '", name, "' has no \"", field, "\"");
  return *it;
}

DType parse_dtype(const Json& dtype, const std::string& name, const Failure& fail) {
  if (!dtype.is_string()) fail("tensor '", name, "' has dtype ", describe(dtype), ", not a string");
  const std::optional<DType> known = detail::dtype_from_safetensors_name(dtype.get<std::string>());
  if (!known) fail("tensor '", name, "' has the unknown dtype ", describe(dtype));
  return *known;
}

/// The dims, each a non-negative integer that fits int64_t.
Shape parse_shape(const Json& shape, const std::string& name, const Failure& fail) {
  if (!shape.is_array()) fail("tensor '", name, "' has shape ", describe(shape), ", not an array");
  std::vector<int64_t> dims;
  for (const Json& dim : shape) {
    if (!dim.is_number_unsigned() ||
        dim.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail("tensor '", name, "' has shape ", describe(shape), ": dim ", describe(dim),
           " is not an integer in [0, 2^63)");
    dims.push_back(dim.get<int64_t>());
  }
  return Shape(std::move(dims));
}

/// [begin, end), two integers with begin <= end.
std::pair<uint64_t, uint64_t> parse_offsets(const Json& offsets, const std::string& name,
                                            const Failure& fail) {
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned() || offsets[0].get<uint64_t>() > offsets[1].get<uint64_t>())
    fail("tensor '", name, "' has data_offsets ", describe(offsets),
         ", not [begin, end] with integers 0 <= begin <= end");
  return {offsets[0].get<uint64_t>(), offsets[1].get<uint64_t>()};
}

/// The bytes shape holds of dtype. Fails when its element count overflows int64_t, as
/// Shape::num_elements counts it (dim by dim), or its byte count overflows 64 bits.
uint64_t byte_count(const Shape& shape, DType dtype, const std::string& name, const Failure& fail) {
  int64_t elements = 1;
  uint64_t bytes = 0;
  for (int64_t dim : shape.dims()) {
    if (__builtin_mul_overflow(elements, dim, &elements))
      fail("tensor '", name, "' of shape ", shape, " has too many elements to count in 64 bits");
  }
  if (__builtin_mul_overflow(static_cast<uint64_t>(elements), dtype_size(dtype), &bytes))
    fail("tensor '", name, "' of shape ", shape, " has too many bytes to count in 64 bits");
  return bytes;
}

Entry parse_entry(const std::string& name, const Json& entry, uint64_t buffer_size,
                  const Failure& fail) {
  if (!entry.is_object()) fail("tensor '", name, "' is ", describe(entry), ", not an object");
  const DType dtype = parse_dtype(field_of(entry, "dtype", name, fail), name, fail);
  const Shape shape = parse_shape(field_of(entry, "shape", name, fail), name, fail);
  const auto [begin, end] = parse_offsets(field_of(entry, "data_offsets", name, fail), name, fail);
  if (end > buffer_size)
    fail("tensor '", name, "' has data_offsets [", begin, ", ", end,
         "], past the end of the data buffer (", buffer_size, " bytes)");
  const uint64_t expected = byte_count(shape, dtype, name, fail);
  if (end - begin != expected)
    fail("tensor '", name, "' has data_offsets [", begin, ", ", end, "] holding ", end - begin,
         " bytes, but shape ", shape, " of ", detail::safetensors_name(dtype), " takes ", expected);
  return {name, dtype, shape, begin, end};
}

/// Sorts entries by offset and checks that they tile [0, buffer_size) with no overlap or gap,
/// as the package requires.
void check_tiling(std::vector<Entry>& entries, uint64_t buffer_size, const Failure& fail) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& entry : entries) {
    if (entry.begin < covered)
      fail("tensor '", entry.name, "' (bytes ", entry.begin, " to ", entry.end,
           ") overlaps tensor '", previous->name, "' (bytes ", previous->begin, " to ",
           previous->end, ")");
    if (entry.begin > covered)
      fail("bytes ", covered, " to ", entry.begin,
           " of the data buffer belong to no tensor (a gap before tensor '", entry.name, "')");
    covered = entry.end;
    previous = &entry;
  }
  if (covered != buffer_size)
    fail("bytes ", covered, " to ", buffer_size, " of the data buffer belong to no tensor");
}

/// The tensor's values; a 0-dim tensor becomes shape [1], ember's smallest rank.
TensorData tensor_data(const Entry& entry, std::span<const std::byte> buffer, const Failure& fail) {
  const auto bytes = buffer.subspan(entry.begin, entry.end - entry.begin);
  const Shape shape = entry.shape.rank() == 0 ? Shape{1} : entry.shape;
  try {
    return TensorData(std::vector<std::byte>(bytes.begin(), bytes.end()), shape, entry.dtype);
  } catch (const InvalidArgument& e) {
    fail("tensor '", entry.name, "': ", e.what());  // a BOOL byte other than 0 and 1
  }
}

}  // namespace

Record deserialize_safetensors(std::span<const std::byte> file, std::string_view source) {
  const Failure fail("load_safetensors", source);
  const uint64_t header_size = read_header_size(file, fail);
  const Json header = parse_header(
      std::string_view(reinterpret_cast<const char*>(file.data()) + 8, header_size), fail);
  const std::span<const std::byte> buffer = file.subspan(8 + header_size);

  Record record;
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) {
      record.metadata = parse_metadata(value, fail);
    } else {
      entries.push_back(parse_entry(key, value, buffer.size(), fail));
    }
  }
  check_tiling(entries, buffer.size(), fail);
  for (const Entry& entry : entries)
    record.tensors.push_back({entry.name, tensor_data(entry, buffer, fail)});
  return record;
}

}  // namespace ember::record
