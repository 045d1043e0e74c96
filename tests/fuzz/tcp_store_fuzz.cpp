// Fuzzes the rendezvous store of ember::collective (src/collective/store_protocol.h) on arbitrary
// bytes, as a peer on MASTER_PORT could send them: the request loop the server runs on each
// connection (serve_requests), its decoding (unknown ops, fields over the limits) and the table's
// limits on keys and bytes. Bad input ends the connection with a Refusal answered to the peer;
// anything else that escapes crashes the target. The same bytes decoded request by request must
// leave an equal table, every accepted request writes and reads back the same, and a value set
// reads back.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "collective/store_protocol.h"
#include "fuzz_support.h"
#include "memory_stream.h"

namespace {

namespace store = ember::collective::store;
using ember::fuzz::require;

/// Small limits, so that inputs of a few hundred bytes reach every refusal.
constexpr store::Limits kLimits = [] {
  store::Limits limits;
  limits.max_key_bytes = 64;
  limits.max_value_bytes = 256;
  limits.max_keys = 16;
  limits.max_total_bytes = 1024;
  return limits;
}();

/// request, written and read again: the same request.
void check_round_trip(const store::Request& request) {
  ember::fuzz::MemoryStream loop;
  store::write_request(loop, request);
  std::byte op{};
  loop.read_exactly({&op, 1});
  const store::Request again = store::read_request(static_cast<uint8_t>(op), loop, kLimits);
  require(again.op == request.op && again.key == request.key && again.value == request.value,
          "a request reads back as written");
}

/// The input decoded request by request into table, until it ends or a request is refused.
void apply_one_by_one(std::span<const std::byte> input, store::Table& table) {
  ember::fuzz::MemoryStream stream(input);
  try {
    for (;;) {
      std::byte op{};
      stream.read_exactly({&op, 1});
      store::Request request = store::read_request(static_cast<uint8_t>(op), stream, kLimits);
      check_round_trip(request);
      const store::Request get{store::Op::Get, request.key, {}};
      const bool set = request.op == store::Op::Set;
      const std::string value = request.value;
      table.apply(std::move(request));
      if (set) {
        const store::Reply read = table.apply(get);
        require(read.status == store::Status::Found && read.field == value,
                "a value set reads back");
      }
    }
  } catch (const ember::Error&) {  // the input's end, or a refusal: the connection ends
  }
  require(table.total_bytes() <= kLimits.max_total_bytes, "the table holds at most its limit");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::span<const std::byte> input = ember::fuzz::input_bytes(data, size);
  store::Table served(kLimits);
  ember::fuzz::MemoryStream stream(input);
  (void)ember::fuzz::parsed_or_refused(
      [&] { return store::serve_requests(stream, served, [](store::Pace) {}); });
  store::Table decoded(kLimits);
  apply_one_by_one(input, decoded);
  require(served.total_bytes() == decoded.total_bytes(),
          "the server's loop does what the requests decoded one by one say");
  return 0;
}
