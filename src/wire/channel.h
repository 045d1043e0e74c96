// One end of a remote-protocol connection: Cap'n Proto messages in their standard stream framing
// (a segment table, then the segments) over a Stream. A received message is checked against the
// limits before anything is allocated for it, and its reader bounds every pointer it follows
// (capnp's traversal and nesting limits), so hostile bytes cost at most max_message_bytes.
#pragma once

#include <capnp/message.h>
#include <capnp/serialize.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "wire/stream.h"

namespace ember::wire {

/// A received message: its words and the reader over them.
class Received {
 public:
  Received(std::vector<capnp::word> words, const capnp::ReaderOptions& options);
  template <typename Root>
  typename Root::Reader root() {
    return reader_->getRoot<Root>();
  }

 private:
  std::vector<capnp::word> words_;
  std::unique_ptr<capnp::FlatArrayMessageReader> reader_;
};

class Channel {
 public:
  /// A channel over stream, which must outlive it.
  Channel(Stream& stream, std::size_t max_message_bytes);

  /// Writes message, then trailing (a tensor's bytes), without copying either.
  void send(capnp::MessageBuilder& message, std::span<const std::byte> trailing = {});
  /// Reads the next message. ExecutionError when the stream fails; InvalidArgument when the
  /// framing is malformed or over the limit (the stream cannot continue after either).
  Received receive();
  /// Reads the bytes.size() bytes that follow a message (a tensor's, whose size the message gave).
  void receive_bytes(std::span<std::byte> bytes) { stream_.read_exactly(bytes); }

  Stream& stream() { return stream_; }

 private:
  Stream& stream_;
  std::size_t max_message_bytes_;
};

/// Reads one message through read_exactly(std::span<std::byte>), which fills its span or throws:
/// the framing checks of Channel::receive, for any source of bytes (a socket, a fuzzer's input).
/// InvalidArgument naming peer when the framing is malformed or over max_message_bytes.
template <typename ReadExactly>
Received read_message(ReadExactly&& read_exactly, std::size_t max_message_bytes,
                      const std::string& peer);

/// Sends an error reply, ignoring a failure to send (the peer may be gone already).
void send_error(Channel& channel, const std::string& message) noexcept;

/// Runs f, turning a kj::Exception (raised by capnp on a malformed message) into InvalidArgument
/// "[remote] malformed message: ...".
template <typename F>
decltype(auto) rethrow_malformed(F&& f);

}  // namespace ember::wire

#include "wire/channel-inl.h"
