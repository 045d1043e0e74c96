// The argument checks of the ember::data templates (checks.h), compiled once.
#include "ember/data/checks.h"

#include <sstream>
#include <string>

#include "ember/error.h"

namespace ember::data::detail {
namespace {

template <typename... Parts>
[[noreturn]] void fail(std::string_view op, const Parts&... parts) {
  std::ostringstream message;
  message << '[' << op << "] ";
  (message << ... << parts);
  throw InvalidArgument(message.str());
}

}  // namespace

void check_not_null(bool pointer_is_set, std::string_view op, std::string_view what) {
  if (!pointer_is_set) fail(op, what, " is null");
}

void check_range(std::size_t start, std::size_t end, std::size_t len, std::string_view op) {
  if (start > end || end > len) {
    fail(op, "range [", start, ", ", end, ") is not within a dataset of ", len, " items");
  }
}

void check_positive(std::size_t value, std::string_view op, std::string_view what) {
  if (value == 0) fail(op, what, " must be positive, got 0");
}

void check_shard(std::size_t shard, std::size_t shards) {
  if (shard >= shards) fail("DataLoader", "shard ", shard, " is not below shards ", shards);
}

void fail_missing_item(std::size_t index, std::size_t len, std::string_view op) {
  fail(op, "the dataset returned no item at index ", index, " although its len is ", len);
}

}  // namespace ember::data::detail
