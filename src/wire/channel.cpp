#include "wire/channel.h"

#include <cstdint>
#include <string>

#include "ember/error.h"
#include "wire/protocol.capnp.h"

namespace ember::wire {
namespace {

/// More segments than a message of ours ever has (one).
constexpr uint32_t kMaxSegments = 64;

}  // namespace

Received::Received(std::vector<capnp::word> words, const capnp::ReaderOptions& options)
    : words_(std::move(words)) {
  reader_ = rethrow_malformed([&] {
    return std::make_unique<capnp::FlatArrayMessageReader>(
        kj::ArrayPtr<const capnp::word>(words_.data(), words_.size()), options);
  });
}

Channel::Channel(Stream& stream, std::size_t max_message_bytes)
    : stream_(stream), max_message_bytes_(max_message_bytes) {}

void Channel::send(capnp::MessageBuilder& message, std::span<const std::byte> trailing) {
  const kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>> segments =
      message.getSegmentsForOutput();
  // The table: the segment count less one, each segment's size in words, padded to a word.
  std::vector<uint32_t> table(segments.size() + 1 + (segments.size() + 1) % 2, 0);
  table[0] = static_cast<uint32_t>(segments.size() - 1);
  std::vector<iovec> pieces{{table.data(), table.size() * sizeof(uint32_t)}};
  for (std::size_t i = 0; i < segments.size(); ++i) {
    table[i + 1] = static_cast<uint32_t>(segments[i].size());
    pieces.push_back(
        {const_cast<capnp::word*>(segments[i].begin()), segments[i].size() * sizeof(capnp::word)});
  }
  if (!trailing.empty())
    pieces.push_back({const_cast<std::byte*>(trailing.data()), trailing.size()});
  stream_.write_all(pieces);
}

Received Channel::receive() {
  return read_message([&](std::span<std::byte> bytes) { stream_.read_exactly(bytes); },
                      max_message_bytes_, stream_.peer());
}

namespace detail {

std::size_t table_words(uint32_t first_word, const std::string& peer) {
  const uint64_t segment_count = uint64_t{first_word} + 1;
  if (segment_count > kMaxSegments)
    throw InvalidArgument("[remote " + peer + "] a message of " + std::to_string(segment_count) +
                          " segments (at most " + std::to_string(kMaxSegments) + ")");
  return (segment_count + 2) / 2;  // the count, a size per segment, padded to a word
}

std::size_t message_words(std::span<const uint32_t> table, std::size_t max_message_bytes,
                          const std::string& peer) {
  uint64_t total = 0;
  for (uint64_t i = 0; i <= table[0]; ++i)
    total += table[i + 1];
  if (total > max_message_bytes / sizeof(capnp::word))
    throw InvalidArgument("[remote " + peer + "] a message of " +
                          std::to_string(total * sizeof(capnp::word)) +
                          " bytes, over the limit of " + std::to_string(max_message_bytes));
  return total;
}

capnp::ReaderOptions reader_options(std::size_t max_message_bytes) {
  capnp::ReaderOptions options;
  options.traversalLimitInWords = max_message_bytes / sizeof(capnp::word);
  options.nestingLimit = 16;
  return options;
}

}  // namespace detail

}  // namespace ember::wire

namespace ember::wire {

void send_error(Channel& channel, const std::string& message) noexcept {
  try {
    capnp::MallocMessageBuilder reply;
    reply.initRoot<proto::Reply>().setError(message);
    channel.send(reply);
  } catch (...) {  // NOLINT: the peer is gone; nothing more to tell it
  }
}

}  // namespace ember::wire
