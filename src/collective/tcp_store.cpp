#include "collective/tcp_store.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <map>
#include <thread>

#include "ember/error.h"

namespace ember::collective {
namespace {

// A request is an op byte, the key and (for Set) the value, each a u32 length and its bytes; the
// answer to Set is one byte, to Get a found byte and the value.
enum class Request : uint8_t { Set = 1, Get = 2 };

/// Keys and values longer than this are refused: the store carries addresses, not data.
constexpr uint32_t kMaxField = 1 << 20;

void write_fields(wire::Stream& stream, uint8_t head, const std::vector<std::string_view>& fields) {
  std::vector<uint32_t> lengths;
  for (std::string_view field : fields)
    lengths.push_back(static_cast<uint32_t>(field.size()));
  std::vector<iovec> pieces{{&head, 1}};
  for (std::size_t i = 0; i < fields.size(); ++i) {
    pieces.push_back({&lengths[i], sizeof(uint32_t)});
    pieces.push_back({const_cast<char*>(fields[i].data()), fields[i].size()});
  }
  stream.write_all(pieces);
}

uint8_t read_byte(wire::Stream& stream) {
  std::byte value{};
  stream.read_exactly({&value, 1});
  return static_cast<uint8_t>(value);
}

std::string read_field(wire::Stream& stream) {
  uint32_t length = 0;
  stream.read_exactly(std::as_writable_bytes(std::span(&length, 1)));
  if (length > kMaxField) {
    throw ExecutionError("[collective] the rendezvous store got a field of " +
                         std::to_string(length) + " bytes from " + stream.peer());
  }
  std::string field(length, '\0');
  stream.read_exactly(std::as_writable_bytes(std::span(field)));
  return field;
}

}  // namespace

struct StoreServer::Table {
  std::mutex mutex;
  std::map<std::string, std::string> values;
};

StoreServer::StoreServer(uint16_t port)
    : listener_("0.0.0.0", port), table_(std::make_shared<Table>()) {
  acceptor_ = std::thread([this] { accept_loop(); });
}

StoreServer::~StoreServer() {
  listener_.shutdown();
  acceptor_.join();
  {
    const std::lock_guard lock(mutex_);
    for (const auto& socket : connections_)
      socket->shutdown();
  }
  for (std::thread& thread : threads_)
    thread.join();
}

void StoreServer::accept_loop() {
  for (;;) {
    wire::Socket socket = listener_.accept();
    if (!socket.is_open()) return;
    const std::lock_guard lock(mutex_);
    connections_.push_back(std::make_unique<wire::Socket>(std::move(socket)));
    wire::Socket& connection = *connections_.back();
    threads_.emplace_back([this, &connection] { serve(connection); });
  }
}

void StoreServer::serve(wire::Socket& socket) {
  // A client that leaves (or a malformed request) ends its connection only.
  try {
    for (;;) {
      const auto request = static_cast<Request>(read_byte(socket));
      const std::string key = read_field(socket);
      if (request == Request::Set) {
        std::string value = read_field(socket);
        {
          const std::lock_guard lock(table_->mutex);
          table_->values[key] = std::move(value);
        }
        write_fields(socket, 1, {});
        continue;
      }
      std::string value;
      bool found = false;
      {
        const std::lock_guard lock(table_->mutex);
        const auto it = table_->values.find(key);
        found = it != table_->values.end();
        if (found) value = it->second;
      }
      write_fields(socket, found ? 1 : 0, {value});
    }
  } catch (const Error&) {
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
  write_fields(socket_, static_cast<uint8_t>(Request::Set),
               {key, std::string_view(data.data(), data.size())});
  read_byte(socket_);
}

bool StoreClient::try_get(const std::string& key, std::vector<char>& value) {
  const std::lock_guard lock(mutex_);
  write_fields(socket_, static_cast<uint8_t>(Request::Get), {key});
  const bool found = read_byte(socket_) == 1;
  const std::string field = read_field(socket_);
  value.assign(field.begin(), field.end());
  return found;
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
