// The deadline of a connection's handshake: a connection that has not completed hello within
// ServeOptions::hello_timeout is closed, so that idle or trickling connections cannot hold the
// server's connection slots. A thread of its own watches the deadlines, since a per-read timeout
// would let a client that sends a byte now and then stay forever (and TLS reads the descriptor
// directly).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

#include "serve/serve_state.h"
#include "wire/socket.h"

namespace ember::serve {

class HelloDeadlines {
 public:
  /// Watches connections of shared's server, closing each limit after it came (zero: never).
  HelloDeadlines(const Shared& shared, std::chrono::milliseconds limit);
  /// Stops watching; call only once every watched connection was forgotten.
  ~HelloDeadlines();
  HelloDeadlines(const HelloDeadlines&) = delete;
  HelloDeadlines& operator=(const HelloDeadlines&) = delete;

  /// Shuts socket down at now + limit unless forget(the ticket returned) comes first. socket must
  /// live until then.
  uint64_t watch(wire::Socket& socket);
  /// Stops watching the connection of ticket (its hello completed, or it ended); idempotent.
  void forget(uint64_t ticket);

 private:
  struct Watched {
    wire::Socket* socket;
    std::chrono::steady_clock::time_point deadline;
  };
  void run();

  const Shared& shared_;
  const std::chrono::milliseconds limit_;
  std::mutex mutex_;
  std::condition_variable wake_;
  // By ticket, which is also deadline order: every deadline is its arrival plus the same limit.
  std::map<uint64_t, Watched> watched_;
  uint64_t next_ticket_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ember::serve
