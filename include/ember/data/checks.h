// Argument checks shared by the ember::data templates, compiled once in src/data/checks.cpp.
// Each throws ember::InvalidArgument whose message starts with "[<op>] " and names the values.
#pragma once

#include <cstddef>
#include <string_view>

namespace ember::data::detail {

/// Throws unless pointer_is_set: "[<op>] <what> is null".
void check_not_null(bool pointer_is_set, std::string_view op, std::string_view what);
/// Throws unless start <= end <= len (a [start, end) range of a dataset of len items).
void check_range(std::size_t start, std::size_t end, std::size_t len, std::string_view op);
/// Throws unless value > 0: "[<op>] <what> must be positive, got 0".
void check_positive(std::size_t value, std::string_view op, std::string_view what);
/// Throws unless shard < shards (which is then positive): "[DataLoader] shard 2 is not below ...".
void check_shard(std::size_t shard, std::size_t shards);
/// Throws: a dataset returned no item for an index below its len().
[[noreturn]] void fail_missing_item(std::size_t index, std::size_t len, std::string_view op);

}  // namespace ember::data::detail
