#include "collective/store_protocol.h"

#include <sys/uio.h>

#include <span>
#include <utility>

namespace ember::collective::store {
namespace {

void write_fields(wire::Stream& stream, uint8_t head,
                  std::initializer_list<std::string_view> fields) {
  uint32_t lengths[2] = {};
  iovec pieces[1 + 2 * 2] = {{&head, 1}};
  std::size_t count = 1;
  for (std::string_view field : fields) {
    uint32_t& length = lengths[(count - 1) / 2];
    length = static_cast<uint32_t>(field.size());
    pieces[count++] = {&length, sizeof(uint32_t)};
    pieces[count++] = {const_cast<char*>(field.data()), field.size()};
  }
  stream.write_all(std::span(pieces, count));
}

uint32_t read_length(wire::Stream& stream) {
  uint32_t length = 0;
  stream.read_exactly(std::as_writable_bytes(std::span(&length, 1)));
  return length;
}

std::string read_bytes(wire::Stream& stream, uint32_t length) {
  std::string field(length, '\0');
  stream.read_exactly(std::as_writable_bytes(std::span(field)));
  return field;
}

/// A field of a request, refused over limit before a byte of it is allocated.
std::string read_field(wire::Stream& stream, const char* what, std::size_t limit) {
  const uint32_t length = read_length(stream);
  if (length > limit) {
    throw Refusal("[rendezvous store] a " + std::string(what) + " of " + std::to_string(length) +
                  " bytes from " + stream.peer() + ": the limit is " + std::to_string(limit));
  }
  return read_bytes(stream, length);
}

}  // namespace

Request read_request(uint8_t op, wire::Stream& stream, const Limits& limits) {
  if (op != static_cast<uint8_t>(Op::Set) && op != static_cast<uint8_t>(Op::Get)) {
    throw Refusal("[rendezvous store] unknown request " + std::to_string(op) + " from " +
                  stream.peer() + " (1 is set, 2 is get)");
  }
  Request request{static_cast<Op>(op), read_field(stream, "key", limits.max_key_bytes), {}};
  if (request.op == Op::Set) request.value = read_field(stream, "value", limits.max_value_bytes);
  return request;
}

void write_request(wire::Stream& stream, const Request& request) {
  const auto op = static_cast<uint8_t>(request.op);
  if (request.op == Op::Set) return write_fields(stream, op, {request.key, request.value});
  write_fields(stream, op, {request.key});
}

Reply read_reply(wire::Stream& stream, std::size_t max_field) {
  std::byte status{};
  stream.read_exactly({&status, 1});
  const uint32_t length = read_length(stream);
  if (static_cast<uint8_t>(status) > static_cast<uint8_t>(Status::Refused) || length > max_field) {
    throw ExecutionError("[collective] the rendezvous store at " + stream.peer() +
                         " replied with status " + std::to_string(static_cast<int>(status)) +
                         " and a field of " + std::to_string(length) + " bytes (at most " +
                         std::to_string(max_field) + "): not ember's store");
  }
  Reply reply{static_cast<Status>(status), read_bytes(stream, length)};
  if (reply.status == Status::Refused) {
    throw ExecutionError("[collective] the rendezvous store at " + stream.peer() +
                         " refused a request: " + reply.field);
  }
  return reply;
}

void write_reply(wire::Stream& stream, const Reply& reply) {
  write_fields(stream, static_cast<uint8_t>(reply.status), {reply.field});
}

Reply Table::apply(Request request) {
  const std::lock_guard lock(mutex_);
  const auto found = values_.find(request.key);
  if (request.op == Op::Get) {
    if (found == values_.end()) return {Status::Missing, {}};
    return {Status::Found, found->second};
  }
  // A Set replaces the value of a key it finds: only the difference counts.
  const std::size_t freed = found == values_.end() ? 0 : found->first.size() + found->second.size();
  const std::size_t added = request.key.size() + request.value.size();
  const std::size_t keys = values_.size() + (found == values_.end() ? 1 : 0);
  if (keys > limits_.max_keys || total_bytes_ - freed + added > limits_.max_total_bytes) {
    throw Refusal("[rendezvous store] setting '" + request.key.substr(0, 64) + "' (" +
                  std::to_string(added) + " bytes) would hold " + std::to_string(keys) +
                  " keys and " + std::to_string(total_bytes_ - freed + added) +
                  " bytes; the limits are " + std::to_string(limits_.max_keys) + " keys and " +
                  std::to_string(limits_.max_total_bytes) + " bytes");
  }
  total_bytes_ = total_bytes_ - freed + added;
  if (found == values_.end()) {
    values_.emplace(std::move(request.key), std::move(request.value));
  } else {
    found->second = std::move(request.value);
  }
  return {Status::Stored, {}};
}

std::size_t Table::total_bytes() const {
  const std::lock_guard lock(mutex_);
  return total_bytes_;
}

std::string serve_requests(wire::Stream& stream, Table& table,
                           const std::function<void(Pace)>& pace) {
  for (;;) {
    pace(Pace::BetweenRequests);
    std::byte op{};
    stream.read_exactly({&op, 1});
    pace(Pace::InRequest);
    try {
      write_reply(stream,
                  table.apply(read_request(static_cast<uint8_t>(op), stream, table.limits())));
    } catch (const Refusal& e) {
      write_reply(stream, {Status::Refused, e.what()});
      return e.what();
    }
  }
}

}  // namespace ember::collective::store
