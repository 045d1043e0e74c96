// The rendezvous store of a run across processes: a key-value table that process 0 serves on
// MASTER_PORT and every process (0 included) reaches at MASTER_ADDR:MASTER_PORT, as torchrun's
// TCPStore does. Gloo's processes exchange their addresses through it. It runs over the remote
// protocol's TCP sockets (wire/socket.h, with timeouts), so no socket code is written twice; the
// Debian Gloo has only file and Redis stores.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gloo/rendezvous/store.h>

#include "wire/socket.h"

namespace ember::collective {

/// The table, served on port by one thread per connection until destroyed.
class StoreServer {
 public:
  explicit StoreServer(uint16_t port);
  ~StoreServer();
  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;

 private:
  struct Table;
  void accept_loop();
  void serve(wire::Socket& socket);

  wire::Listener listener_;
  std::shared_ptr<Table> table_;
  std::mutex mutex_;  // guards connections_
  std::vector<std::unique_ptr<wire::Socket>> connections_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

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
