// The rendezvous store (src/collective/tcp_store.h) under hostile and broken peers: a refused
// request is answered with the reason and closes its own connection only; keys, values, the table
// and the connections are bounded; a stalled peer blocks nobody; connection threads are joined.
#ifdef EMBER_COLLECTIVE_GLOO
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/uio.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collective/tcp_store.h"
#include "ember/error.h"
#include "wire/socket.h"

namespace ember::test {
namespace {

using namespace std::chrono_literals;
using collective::StoreClient;
using collective::StoreServer;
using collective::StoreServerOptions;
namespace store = collective::store;

/// A server on a free loopback port whose log lines the test reads.
struct LoggedServer {
  explicit LoggedServer(StoreServerOptions options = {}) {
    options.log = [this](const std::string& line) {
      const std::lock_guard lock(mutex);
      lines.push_back(line);
    };
    server = std::make_unique<StoreServer>(std::move(options));
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(server->port()); }
  /// Whether a line logged so far holds text.
  bool logged(const std::string& text) {
    const std::lock_guard lock(mutex);
    for (const std::string& line : lines)
      if (line.find(text) != std::string::npos) return true;
    return false;
  }

  std::mutex mutex;
  std::vector<std::string> lines;
  std::unique_ptr<StoreServer> server;
};

/// Options whose fields change sets (the defaults otherwise).
template <typename Change>
StoreServerOptions options_where(Change&& change) {
  StoreServerOptions options;
  change(options);
  return options;
}

/// A connection that sends raw bytes.
struct RawPeer {
  explicit RawPeer(const std::string& address) : socket(wire::Socket::connect(address, 5s)) {
    socket.set_timeout(5s);
  }
  void send(std::vector<uint8_t> bytes) {
    iovec piece{bytes.data(), bytes.size()};
    socket.write_all(std::span(&piece, 1));
  }
  /// The reason of the Refused reply the store sends; fails the test on any other reply.
  std::string refusal() {
    try {
      store::read_reply(socket, 1 << 20);
      ADD_FAILURE() << "the store did not refuse";
    } catch (const ExecutionError& e) {
      return e.what();
    }
    return "";
  }
  /// Whether the store closed the connection.
  bool closed() {
    std::byte byte{};
    try {
      socket.read_exactly({&byte, 1});
      return false;
    } catch (const ExecutionError&) {
      return true;
    }
  }
  wire::Socket socket;
};

/// A u32 length in the store's byte order, as four bytes.
std::vector<uint8_t> length_bytes(uint32_t length) {
  std::vector<uint8_t> bytes(sizeof(length));
  std::memcpy(bytes.data(), &length, sizeof(length));
  return bytes;
}

std::vector<char> chars(const std::string& text) {
  return {text.begin(), text.end()};
}

/// Waits (up to 5 s) until the server's connections are down to count.
void wait_for_connections(StoreServer& server, std::size_t count) {
  for (int wait = 0; wait < 500 && server.connections() > count; ++wait)
    std::this_thread::sleep_for(10ms);
}

/// The store still serves a well-behaved client.
void expect_serving(const std::string& address) {
  StoreClient client(address, 5s);
  client.set("still", chars("serving"));
  EXPECT_EQ(client.get("still"), chars("serving"));
}

/// The entries of a folder of /proc/self: task (threads), fd (open descriptors).
std::size_t entries_of(const char* folder) {
  const std::filesystem::directory_iterator first(std::string("/proc/self/") + folder);
  return static_cast<std::size_t>(std::distance(first, std::filesystem::directory_iterator()));
}

TEST(TcpStore, SetsGetsAndWaits) {
  LoggedServer served;
  StoreClient a(served.address(), 5s);
  StoreClient b(served.address(), 5s);
  a.set("rank_0", chars("10.0.0.1"));
  EXPECT_EQ(b.get("rank_0"), chars("10.0.0.1"));
  a.set("rank_0", chars("10.0.0.2"));  // a replaced value
  EXPECT_EQ(b.get("rank_0"), chars("10.0.0.2"));
  const auto start = std::chrono::steady_clock::now();
  try {
    b.wait({"rank_1"}, 100ms);
    ADD_FAILURE() << "waited for a key nobody set";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("waited 100 ms for 'rank_1'"), std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(TcpStore, RefusesAnUnknownRequestAndGoesOnServingOthers) {
  LoggedServer served;
  RawPeer peer(served.address());
  std::vector<uint8_t> request{7};
  const std::vector<uint8_t> length = length_bytes(3);
  request.insert(request.end(), length.begin(), length.end());
  request.insert(request.end(), {'k', 'e', 'y'});
  peer.send(request);
  const std::string why = peer.refusal();
  EXPECT_NE(why.find("unknown request 7"), std::string::npos) << why;
  EXPECT_TRUE(peer.closed());
  EXPECT_TRUE(served.logged("refused: [rendezvous store] unknown request 7"));
  expect_serving(served.address());
}

TEST(TcpStore, RefusesKeysAndValuesOverTheLimitsBeforeAllocatingThem) {
  LoggedServer served(options_where([](StoreServerOptions& o) {
    o.limits.max_key_bytes = 16;
    o.limits.max_value_bytes = 64;
  }));
  {  // a key claiming 2^32 - 1 bytes: refused from its length alone
    RawPeer peer(served.address());
    std::vector<uint8_t> request{static_cast<uint8_t>(store::Op::Get)};
    const std::vector<uint8_t> length = length_bytes(0xFFFFFFFFu);
    request.insert(request.end(), length.begin(), length.end());
    peer.send(request);
    const std::string why = peer.refusal();
    EXPECT_NE(why.find("a key of 4294967295 bytes"), std::string::npos) << why;
    EXPECT_NE(why.find("the limit is 16"), std::string::npos) << why;
    EXPECT_TRUE(peer.closed());
  }
  StoreClient client(served.address(), 5s);
  try {
    client.set("key", std::vector<char>(65, 'x'));
    ADD_FAILURE() << "a value of 65 bytes was stored";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("a value of 65 bytes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the limit is 64"), std::string::npos) << e.what();
  }
  EXPECT_EQ(served.server->stored_bytes(), 0U);
  expect_serving(served.address());
}

TEST(TcpStore, RefusesMoreKeysOrBytesThanItsLimits) {
  LoggedServer served(options_where([](StoreServerOptions& o) {
    o.limits.max_keys = 3;
    o.limits.max_total_bytes = 100;
  }));
  StoreClient client(served.address(), 5s);
  for (const char* key : {"a", "b", "c"})
    client.set(key, chars("1"));
  client.set("a", chars("2"));  // replacing a key adds none
  try {
    client.set("d", chars("1"));
    ADD_FAILURE() << "a fourth key was stored";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("would hold 4 keys"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the limits are 3 keys and 100 bytes"), std::string::npos)
        << e.what();
  }
  StoreClient other(served.address(), 5s);
  try {
    other.set("a", std::vector<char>(98, 'x'));  // 99 bytes, and "b1", "c1" hold 4
    ADD_FAILURE() << "103 bytes were stored";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("103 bytes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(served.server->stored_bytes(), 6U);  // the table as it was
}

TEST(TcpStore, ConnectingAndLeavingInALoopLeavesNoThreadBehind) {
  LoggedServer served;
  expect_serving(served.address());
  wait_for_connections(*served.server, 0);
  const std::size_t threads = entries_of("task");
  for (int i = 0; i < 300; ++i) {
    RawPeer peer(served.address());
    if (i % 2 == 0) peer.send({static_cast<uint8_t>(store::Op::Get)});  // and leave mid-request
  }
  // One acceptor takes connections in the order they came: once a later client is served, all
  // 300 have been accepted, and none can still be waiting in the backlog to raise the count.
  expect_serving(served.address());
  wait_for_connections(*served.server, 0);
  EXPECT_EQ(served.server->connections(), 0U);
  // A connection's count drops before its thread has exited (slower under ASan on a busy
  // machine): the threads get up to 5 s to go; 300 left behind would not.
  for (int wait = 0; wait < 500 && entries_of("task") > threads + 1; ++wait)
    std::this_thread::sleep_for(10ms);
  EXPECT_LE(entries_of("task"), threads + 1);
  expect_serving(served.address());
}

TEST(TcpStore, RefusesConnectionsOverItsLimit) {
  LoggedServer served(options_where([](StoreServerOptions& o) { o.max_connections = 4; }));
  std::vector<std::unique_ptr<StoreClient>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<StoreClient>(served.address(), 5s));
    clients.back()->set("rank_" + std::to_string(i), chars("x"));  // served: its thread runs
  }
  RawPeer fifth(served.address());
  const std::string why = fifth.refusal();
  EXPECT_NE(why.find("at most 4 connections"), std::string::npos) << why;
  EXPECT_TRUE(served.logged("at most 4 connections"));
  clients.pop_back();  // one leaves: its place is free again
  wait_for_connections(*served.server, 3);
  expect_serving(served.address());
}

TEST(TcpStore, APeerThatStallsMidRequestBlocksNobodyAndIsDropped) {
  LoggedServer served(options_where([](StoreServerOptions& o) { o.request_timeout = 1500ms; }));
  RawPeer stalled(served.address());
  std::vector<uint8_t> half{static_cast<uint8_t>(store::Op::Set)};
  const std::vector<uint8_t> length = length_bytes(10);
  half.insert(half.end(), length.begin(), length.end());
  half.insert(half.end(), {'a', 'b', 'c'});  // 3 bytes of a 10-byte key, then nothing
  stalled.send(half);
  const auto start = std::chrono::steady_clock::now();
  expect_serving(served.address());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms);
  EXPECT_TRUE(stalled.closed());  // after the request timeout
  wait_for_connections(*served.server, 0);
  EXPECT_EQ(served.server->connections(), 0U);
  EXPECT_TRUE(served.logged("dropped"));
}

// A peer holding connections until the process runs out of descriptors made the listener's
// accept fail, and the store stopped accepting for good; it now waits for descriptors to free.
TEST(TcpStore, GoesOnAcceptingAfterTheProcessRanOutOfDescriptors) {
  LoggedServer served;
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  const rlimit low{entries_of("fd") + 64, limit.rlim_max};  // a little above what is open now
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  {
    std::vector<std::unique_ptr<RawPeer>> peers;
    for (int i = 0; i < 200; ++i) {  // until connecting fails: the server's accepts failed before
      try {
        peers.push_back(std::make_unique<RawPeer>(served.address()));
      } catch (const ExecutionError&) {
        break;
      }
    }
    EXPECT_LT(peers.size(), 200U);
  }
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &limit), 0);
  expect_serving(served.address());
}

TEST(TcpStore, ServesOnMasterAddrOrElseEveryInterface) {
  // 192.0.2.1 (TEST-NET-1) is no address of this machine: the store takes every interface.
  const uint16_t port = [] {
    const wire::Listener listener("127.0.0.1", 0);
    return listener.port();
  }();
  const std::unique_ptr<StoreServer> server = collective::serve_store("192.0.2.1", port);
  expect_serving("127.0.0.1:" + std::to_string(port));
  LoggedServer loopback(options_where([](StoreServerOptions& o) { o.address = "127.0.0.1"; }));
  EXPECT_THROW(StoreClient("127.0.0.2:" + std::to_string(loopback.server->port()), 200ms),
               ExecutionError);
}

}  // namespace
}  // namespace ember::test
#endif
