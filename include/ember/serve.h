// The server of remote devices (`ember serve`, docs/backends/remote.md): hosts this machine's
// devices for ember's remote backend over TCP. Safe to expose: it refuses a client without the
// credential on any address but loopback, checks every message against the same shape and dtype
// rules as local execution and against its limits, and a failing or hostile client costs only its
// own connection.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/device.h"

namespace ember {

struct ServeOptions {
  /// The address to listen on: loopback unless said otherwise.
  std::string bind = "127.0.0.1";
  /// The port; 0 takes a free one (Server::port says which).
  uint16_t port = 0;
  /// The token every client must present. Required (ConfigError otherwise) when bind is not a
  /// loopback address; on loopback, checked when set.
  std::string credential;
  /// TLS: the server's certificate chain and private key (PEM files), both or neither. With them
  /// every connection is TLS (1.2 or newer), and clients must trust the certificate
  /// (RemoteHost::with_tls).
  std::string tls_certificate_file;
  std::string tls_key_file;
  /// The devices served, in the order clients index them; empty: every device of this machine.
  std::vector<Device> devices;
  /// The largest message accepted (a tensor's bytes travel outside messages: the session's
  /// byte limit bounds them).
  std::size_t max_message_bytes = std::size_t{64} << 20;
  /// The most tensors one session may hold at once.
  std::size_t max_tensors_per_session = std::size_t{1} << 20;
  /// The most bytes of tensors one session may hold at once.
  std::size_t max_session_bytes = std::size_t{16} << 30;
  /// The most elements one batch's ops (a run, or a replay of a kept sequence) may make together,
  /// and the most element operations they may compute (an op that contracts, such as a matmul,
  /// counting its products; any other the elements it reads and makes). An op past either fails
  /// with an ExecutionError naming it and the figures; the session goes on. The defaults are far
  /// above a training step's batch (a few million of either for a small CNN) and bound a hostile
  /// batch to seconds of a CPU's time; raise them for very large models.
  uint64_t max_batch_elements = uint64_t{1} << 32;
  uint64_t max_batch_work = uint64_t{1} << 40;
  /// The most connections served at once, each by a thread of its own; one more is answered with
  /// an error and closed.
  std::size_t max_connections = 1024;
  /// How long a connection may take to complete its hello (the TLS handshake included) before
  /// the server closes it, so that idle connections cannot hold the connection slots (zero:
  /// forever).
  std::chrono::milliseconds hello_timeout{std::chrono::seconds(10)};
  /// How long a connection may stay silent before the server closes it (zero: forever).
  std::chrono::milliseconds idle_timeout{std::chrono::minutes(10)};
  /// Receives one line per connection, refusal and error; null: standard error.
  std::function<void(const std::string&)> log;
};

/// A running server: listens from construction (in a thread of its own, one thread per client)
/// until stop() or destruction.
class Server {
 public:
  /// Binds and starts serving. ConfigError when the options are refused (no credential off
  /// loopback, no device, a TLS certificate or key that does not load), ExecutionError when the
  /// address cannot be bound.
  explicit Server(ServeOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The port listened on.
  uint16_t port() const;
  /// Stops accepting, closes every connection (freeing what its session holds) and returns when
  /// every connection thread has ended.
  void stop();
  /// How many sessions are open, and the bytes of tensors they hold together.
  std::size_t open_sessions() const;
  std::size_t session_bytes() const;
  /// How many kept op sequences clients have replayed (a training step's batches, once each
  /// has been defined).
  std::size_t replays() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace ember
