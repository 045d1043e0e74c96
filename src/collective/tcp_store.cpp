#include "collective/tcp_store.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <iostream>
#include <thread>

#include "ember/error.h"

namespace ember::collective {

StoreServer::StoreServer(StoreServerOptions options)
    : options_(std::move(options)),
      table_(options_.limits),
      listener_(options_.address, options_.port) {
  acceptor_ = std::thread([this] { accept_loop(); });
}

StoreServer::~StoreServer() {
  {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
    listener_.shutdown();
    for (Connection& connection : connections_)
      connection.socket.shutdown();
  }
  acceptor_.join();
  for (Connection& connection : connections_)
    connection.thread.join();
}

std::size_t StoreServer::connections() {
  const std::lock_guard lock(mutex_);
  reap_finished();
  return connections_.size();
}

void StoreServer::accept_loop() {
  for (;;) {
    wire::Socket socket = listener_.accept();
    const std::lock_guard lock(mutex_);
    if (stopped_ || !socket.is_open()) return;
    // Note: reaped here, on every connection, so that a client that connects and leaves in a loop
    // leaves no thread behind: at most max_connections threads exist, plus the ended ones since
    // the last accept.
    reap_finished();
    if (connections_.size() >= options_.max_connections) {
      const std::string why = "the store serves at most " +
                              std::to_string(options_.max_connections) + " connections at once";
      log(socket.peer() + ": refused: " + why);
      try {
        socket.set_timeout(options_.request_timeout);
        store::write_reply(socket, {store::Status::Refused, why});
      } catch (const Error&) {  // the peer is gone already
      }
      continue;
    }
    Connection& connection = connections_.emplace_back();
    connection.socket = std::move(socket);
    connection.thread = std::thread([this, &connection] { serve(connection); });
  }
}

void StoreServer::reap_finished() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (!it->finished.load()) {
      ++it;
      continue;
    }
    it->thread.join();
    it = connections_.erase(it);
  }
}

void StoreServer::serve(Connection& connection) {
  wire::Socket& socket = connection.socket;
  store::Pace at = store::Pace::BetweenRequests;
  try {
    const std::string refusal = store::serve_requests(socket, table_, [&](store::Pace pace) {
      at = pace;
      socket.set_timeout(pace == store::Pace::InRequest ? options_.request_timeout
                                                        : std::chrono::milliseconds(0));
    });
    log(socket.peer() + ": refused: " + refusal);
  } catch (const Error& e) {
    // A client leaving between requests is a run's normal end; within a request it is a peer
    // that failed or stalled.
    if (at == store::Pace::InRequest) log(socket.peer() + ": dropped: " + e.what());
  }
  // The peer sees the end at once; the descriptor closes when the connection is reaped, so that
  // the destructor never shuts down a descriptor reused by another.
  socket.shutdown();
  connection.finished = true;
}

void StoreServer::log(const std::string& line) const {
  if (options_.log) return options_.log(line);
  std::cerr << "ember rendezvous store: " << line << std::endl;
}

std::unique_ptr<StoreServer> serve_store(const std::string& master_addr, uint16_t port) {
  StoreServerOptions options;
  options.address = master_addr;
  options.port = port;
  try {
    return std::make_unique<StoreServer>(options);
  } catch (const ExecutionError& e) {
    std::cerr << "ember rendezvous store: " << e.what() << "; listening on every interface"
              << std::endl;
    options.address = "0.0.0.0";
    return std::make_unique<StoreServer>(options);
  }
}

StoreClient::StoreClient(const std::string& address, std::chrono::milliseconds timeout)
    : timeout_(timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    try {
      socket_ = wire::Socket::connect(address, timeout);
      break;
    } catch (const ExecutionError& e) {
      if (std::chrono::steady_clock::now() >= deadline) {
        throw ExecutionError("[collective] no rendezvous store at " + address +
                             " (MASTER_ADDR:" + "MASTER_PORT) within " +
                             std::to_string(timeout.count()) + " ms: " + e.what());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  socket_.set_timeout(timeout);
}

void StoreClient::set(const std::string& key, const std::vector<char>& data) {
  const std::lock_guard lock(mutex_);
  store::write_request(socket_, {store::Op::Set, key, std::string(data.begin(), data.end())});
  store::read_reply(socket_, store::Limits{}.max_value_bytes);
}

bool StoreClient::try_get(const std::string& key, std::vector<char>& value) {
  const std::lock_guard lock(mutex_);
  store::write_request(socket_, {store::Op::Get, key, {}});
  const store::Reply reply = store::read_reply(socket_, store::Limits{}.max_value_bytes);
  value.assign(reply.field.begin(), reply.field.end());
  return reply.status == store::Status::Found;
}

std::vector<char> StoreClient::get(const std::string& key) {
  wait({key});
  std::vector<char> value;
  try_get(key, value);
  return value;
}

void StoreClient::wait(const std::vector<std::string>& keys) {
  wait(keys, timeout_);
}

void StoreClient::wait(const std::vector<std::string>& keys,
                       const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<char> ignored;
  for (const std::string& key : keys) {
    while (!try_get(key, ignored)) {
      if (std::chrono::steady_clock::now() >= deadline) {
        throw ExecutionError("[collective] waited " + std::to_string(timeout.count()) +
                             " ms for '" + key + "' in the rendezvous store at " + socket_.peer() +
                             " (a process that did not start, or died)");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

std::string StoreClient::local_address() const {
  sockaddr_storage local{};
  socklen_t length = sizeof(local);
  getsockname(socket_.descriptor(), reinterpret_cast<sockaddr*>(&local), &length);
  char text[INET6_ADDRSTRLEN] = "";
  const void* address =
      local.ss_family == AF_INET6
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6&>(local).sin6_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in&>(local).sin_addr);
  inet_ntop(local.ss_family, address, text, sizeof(text));
  return text;
}

}  // namespace ember::collective
