// TCP sockets for the remote protocol: a connected stream with read and write timeouts, and a
// listener. Failures throw ExecutionError naming the peer and the system's reason; a read or
// write that waits past its timeout fails the same way, so nothing hangs on a silent peer.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "wire/stream.h"

namespace ember::wire {

/// A connected TCP stream (owns its descriptor).
class Socket final : public Stream {
 public:
  Socket() = default;
  Socket(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}
  Socket(Socket&& other) noexcept;
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() override;

  /// Connects to "host:port" (a name or an address, IPv4 or IPv6).
  static Socket connect(const std::string& address, std::chrono::milliseconds timeout);

  void read_exactly(std::span<std::byte> bytes) override;
  void write_all(std::span<iovec> pieces) override;
  void shutdown() noexcept override;
  const std::string& peer() const override { return peer_; }

  /// Read and write timeouts (zero: wait forever).
  void set_timeout(std::chrono::milliseconds timeout);
  bool is_open() const { return fd_ >= 0; }
  /// The descriptor, for TLS to run over (the Socket keeps owning it).
  int descriptor() const { return fd_; }

 private:
  int fd_ = -1;
  std::string peer_;  // "host:port", for messages
};

/// A listening TCP socket.
class Listener {
 public:
  /// Binds address (an IPv4 or IPv6 literal, or a name) and port (0: any free port).
  Listener(const std::string& address, uint16_t port);
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  ~Listener();

  /// The port bound (the one the system chose for port 0).
  uint16_t port() const { return port_; }
  /// The next connection; an empty Socket once shutdown() was called. Out of descriptors, it waits
  /// for some to come back.
  Socket accept();
  /// Wakes accept() and makes every later call return an empty Socket.
  void shutdown() noexcept;

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

/// Splits "host:port" (host may be "[v6]"); InvalidArgument naming the address when malformed.
std::pair<std::string, uint16_t> split_address(const std::string& address);
/// Whether address (a literal or a name) is a loopback address.
bool is_loopback(const std::string& address);

}  // namespace ember::wire
