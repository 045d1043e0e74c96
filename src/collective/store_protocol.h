// The rendezvous store's protocol, apart from any socket: the requests a client sends, the
// replies, the table they act on and its limits. The server (tcp_store.cpp) runs it on a TCP
// connection; tests/fuzz/tcp_store_fuzz.cpp runs it on arbitrary bytes.
//
// A request is an op byte (1 Set, 2 Get), the key and, for Set, the value, each a u32 length
// (host order: every process of a run shares its architecture) and its bytes. A reply is a status
// byte and a field: Stored and Missing carry an empty one, Found the value, Refused the reason,
// after which the server closes the connection.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "ember/error.h"
#include "wire/stream.h"

namespace ember::collective::store {

/// What the store accepts at most (docs/data_parallel.md). Gloo's full mesh stores one value per
/// process of 136 bytes per peer, so a run of N processes stores N values of 136 N bytes: the
/// defaults hold about 2,800 processes (1 GiB together), each value up to 64 MiB.
struct Limits {
  std::size_t max_key_bytes = 4096;
  std::size_t max_value_bytes = std::size_t{64} << 20;
  std::size_t max_keys = std::size_t{1} << 16;
  /// Keys and values of every entry together.
  std::size_t max_total_bytes = std::size_t{1} << 30;
};

enum class Op : uint8_t { Set = 1, Get = 2 };
enum class Status : uint8_t { Missing = 0, Found = 1, Stored = 2, Refused = 3 };

struct Request {
  Op op = Op::Get;
  std::string key;
  std::string value;  ///< Set's
};

struct Reply {
  Status status = Status::Missing;
  std::string field;  ///< Found: the value; Refused: why
};

/// A request the store does not take (an unknown op, a field or a table over its limits): the
/// server answers it with Refused and closes that connection.
class Refusal : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

/// Reads the rest of a request whose op byte was read: Refusal for an op that is neither Set nor
/// Get, or a key or value longer than the limits (checked before anything is allocated for it);
/// ExecutionError when the stream ends or fails.
Request read_request(uint8_t op, wire::Stream& stream, const Limits& limits);
void write_request(wire::Stream& stream, const Request& request);

/// Reads a reply: its field at most max_field bytes (ExecutionError beyond, and for Refused, with
/// the store's reason, or a status the protocol does not have).
Reply read_reply(wire::Stream& stream, std::size_t max_field);
void write_reply(wire::Stream& stream, const Reply& reply);

/// The key-value table, shared by every connection of a store.
class Table {
 public:
  explicit Table(Limits limits) : limits_(limits) {}

  /// Stores (Set) or looks up (Get). Refusal when a Set would take the table over max_keys or
  /// max_total_bytes (naming the numbers); the table is then unchanged.
  Reply apply(Request request);

  const Limits& limits() const { return limits_; }
  /// The bytes of keys and values held.
  std::size_t total_bytes() const;

 private:
  const Limits limits_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> values_;
  std::size_t total_bytes_ = 0;
};

/// Where a connection is: waiting for its next request (a client may stay silent for a whole run)
/// or inside one (the server's socket then times a stalled peer out).
enum class Pace { BetweenRequests, InRequest };

/// Answers the requests on stream until it ends (ExecutionError from the stream, propagated) or
/// a request is refused: the refusal is answered and its reason returned. pace is told when each
/// request begins and ends.
std::string serve_requests(wire::Stream& stream, Table& table,
                           const std::function<void(Pace)>& pace);

}  // namespace ember::collective::store
