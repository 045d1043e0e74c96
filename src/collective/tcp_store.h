// The rendezvous store of a run across processes: a key-value table that process 0 serves on
// MASTER_PORT and every process (0 included) reaches at MASTER_ADDR:MASTER_PORT, as torchrun's
// TCPStore does. Gloo's processes exchange their addresses through it. It runs over the remote
// protocol's TCP sockets (wire/socket.h, with timeouts), so no socket code is written twice; the
// Debian Gloo has only file and Redis stores. The protocol itself is store_protocol.h. Like
// torch's TCPStore it authenticates nobody: docs/data_parallel.md says what that means.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gloo/rendezvous/store.h>

#include "collective/store_protocol.h"
#include "wire/socket.h"

namespace ember::collective {

struct StoreServerOptions {
  /// The address listened on: GlooLink gives MASTER_ADDR, so that the store is reached from the
  /// network the run was told to use only (serve_store falls back to every interface).
  std::string address = "127.0.0.1";
  /// 0: a free port (StoreServer::port says which).
  uint16_t port = 0;
  store::Limits limits;
  /// Connections served at once: each has a thread. One more is refused (answered Refused and
  /// closed). A run holds one per process.
  std::size_t max_connections = 4096;
  /// How long the rest of a request may take once its first byte came: a peer that sends half a
  /// request and stalls is closed then (between requests a client may stay silent for the run).
  std::chrono::milliseconds request_timeout{std::chrono::seconds(30)};
  /// Receives a line per refused request or connection and per peer dropped mid-request; null:
  /// standard error.
  std::function<void(const std::string&)> log;
};

/// The table, served on a port, one thread per connection, until destroyed. A connection that
/// breaks the protocol or a limit is answered with the reason and closed; the others go on.
class StoreServer {
 public:
  /// Binds options.address:options.port (ExecutionError when it cannot) and starts serving.
  explicit StoreServer(StoreServerOptions options);
  ~StoreServer();
  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;

  uint16_t port() const { return listener_.port(); }
  /// Joins the threads of connections that ended, and returns how many are left (being served).
  std::size_t connections();
  /// The bytes of keys and values the table holds.
  std::size_t stored_bytes() const { return table_.total_bytes(); }

 private:
  struct Connection {
    wire::Socket socket;
    std::thread thread;
    std::atomic<bool> finished{false};
  };

  void accept_loop();
  /// Joins and forgets the connections that ended (mutex_ held).
  void reap_finished();
  void serve(Connection& connection);
  void log(const std::string& line) const;

  const StoreServerOptions options_;
  store::Table table_;
  wire::Listener listener_;
  std::mutex mutex_;  // guards connections_ and stopped_
  std::list<Connection> connections_;
  bool stopped_ = false;
  std::thread acceptor_;
};

/// The store of a run: on master_addr:port when master_addr is an address of this machine, else
/// (a name that resolves elsewhere, an address behind NAT) on every interface, saying so on
/// standard error.
std::unique_ptr<StoreServer> serve_store(const std::string& master_addr, uint16_t port);

/// A process's client of the store, as Gloo's rendezvous uses it: get and wait poll until the key
/// is there, ExecutionError past the timeout.
class StoreClient final : public gloo::rendezvous::Store {
 public:
  /// Connects to address ("host:port"), retrying until timeout (process 0 may start later).
  StoreClient(const std::string& address, std::chrono::milliseconds timeout);

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  /// This end's IP address: the one the other processes reach this process at.
  std::string local_address() const;

 private:
  /// The value of key, or false when it is not set yet.
  bool try_get(const std::string& key, std::vector<char>& value);

  wire::Socket socket_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;  // one request at a time
};

}  // namespace ember::collective
