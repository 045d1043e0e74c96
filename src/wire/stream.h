// A byte stream of the remote protocol: a plain TCP socket (socket.h) or TLS over one (tls.h).
// Failures throw ExecutionError naming the peer; nothing waits past the socket's timeout.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <span>
#include <string>

namespace ember::wire {

class Stream {
 public:
  virtual ~Stream() = default;
  /// Reads exactly bytes.size() bytes; ExecutionError on end of stream, error or timeout.
  virtual void read_exactly(std::span<std::byte> bytes) = 0;
  /// Writes every byte of the pieces, in order (it may change the pieces).
  virtual void write_all(std::span<iovec> pieces) = 0;
  /// Ends both directions: a thread blocked reading returns at once.
  virtual void shutdown() noexcept = 0;
  /// "host:port", for messages.
  virtual const std::string& peer() const = 0;
};

}  // namespace ember::wire
