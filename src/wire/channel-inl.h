// rethrow_malformed (channel.h): a template, so its callers keep their return types.
#pragma once

#include <kj/exception.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "ember/error.h"

namespace ember::wire {

namespace detail {

/// The words of a message's segment table, from its first word (the segment count less one).
std::size_t table_words(uint32_t first_word, const std::string& peer);
/// The words of the segments the table lists, refused over max_message_bytes.
std::size_t message_words(std::span<const uint32_t> table, std::size_t max_message_bytes,
                          const std::string& peer);
capnp::ReaderOptions reader_options(std::size_t max_message_bytes);

}  // namespace detail

template <typename ReadExactly>
Received read_message(ReadExactly&& read_exactly, std::size_t max_message_bytes,
                      const std::string& peer) {
  std::vector<uint32_t> table(2);
  read_exactly(std::as_writable_bytes(std::span(table)));
  table.resize(detail::table_words(table[0], peer) * 2);
  read_exactly(std::as_writable_bytes(std::span(table).subspan(2)));
  const std::size_t segment_words = detail::message_words(table, max_message_bytes, peer);
  std::vector<capnp::word> words(table.size() / 2 + segment_words);
  std::memcpy(static_cast<void*>(words.data()), table.data(), table.size() * sizeof(uint32_t));
  read_exactly(std::as_writable_bytes(std::span(words).subspan(table.size() / 2)));
  return Received(std::move(words), detail::reader_options(max_message_bytes));
}

template <typename F>
decltype(auto) rethrow_malformed(F&& f) {
  try {
    return f();
  } catch (const kj::Exception& e) {
    throw InvalidArgument("[remote] malformed message: " + std::string(e.getDescription().cStr()));
  }
}

}  // namespace ember::wire
