#include "serve/hello_deadlines.h"

#include <string>

namespace ember::serve {

HelloDeadlines::HelloDeadlines(const Shared& shared, std::chrono::milliseconds limit)
    : shared_(shared), limit_(limit) {
  if (limit_.count() > 0) thread_ = std::thread([this] { run(); });
}

HelloDeadlines::~HelloDeadlines() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

uint64_t HelloDeadlines::watch(wire::Socket& socket) {
  const std::lock_guard lock(mutex_);
  const uint64_t ticket = next_ticket_++;
  if (limit_.count() > 0)
    watched_.emplace(ticket, Watched{&socket, std::chrono::steady_clock::now() + limit_});
  wake_.notify_one();
  return ticket;
}

void HelloDeadlines::forget(uint64_t ticket) {
  const std::lock_guard lock(mutex_);
  watched_.erase(ticket);
}

void HelloDeadlines::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (watched_.empty()) {
      wake_.wait(lock);
      continue;
    }
    const auto earliest = watched_.begin();
    // A copy: the wait reads its deadline after waking, and forget() may erase the entry while
    // the lock is released.
    const std::chrono::steady_clock::time_point deadline = earliest->second.deadline;
    if (std::chrono::steady_clock::now() < deadline) {
      wake_.wait_until(lock, deadline);
      continue;
    }
    wire::Socket& socket = *earliest->second.socket;
    shared_.log(socket.peer() + ": closed: no hello within " + std::to_string(limit_.count()) +
                " ms");
    socket.shutdown();
    watched_.erase(earliest);
  }
}

}  // namespace ember::serve
