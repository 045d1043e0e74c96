// Fuzzes a whole session of `ember serve` (src/serve/session.cpp), in process: the target says
// hello and opens device 0 (the reference ndarray device) itself, so that every input reaches the
// requests of an open session: uploads and their bytes, runs of ops, sequences defined (with
// their dead lists) and replayed, downloads, releases, syncs, settings, timestamps. The server's
// promise is that a client's bytes end at most its own connection, with an error reply: an
// exception that is not an ember::Error (logged as "closed after an error") crashes the target,
// as do the sanitizers' reports, and a session must leave nothing behind when it ends.
#include <capnp/message.h>
#include <capnp/serialize.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "ember/device.h"
#include "ember/serve.h"
#include "ember/tensor_bytes.h"
#include "fuzz_support.h"
#include "memory_stream.h"
#include "serve/serve_state.h"
#include "serve/session.h"
#include "wire/channel.h"
#include "wire/meta_codec.h"
#include "wire/protocol.capnp.h"

namespace {

namespace proto = ember::wire::proto;

/// Whether EMBER_FUZZ_VERBOSE is set: the target then prints the server's log and replies, to see
/// what an input does.
bool verbose() {
  static const bool set = std::getenv("EMBER_FUZZ_VERBOSE") != nullptr;
  return set;
}

/// hello (this protocol version, no credential) and open(0), framed as a client sends them.
std::vector<std::byte> handshake() {
  std::vector<std::byte> bytes;
  const auto append = [&](auto&& fill) {
    capnp::MallocMessageBuilder message;
    fill(message.initRoot<proto::Request>());
    const auto words = capnp::messageToFlatArray(message);
    const auto chars = words.asBytes();
    for (const kj::byte c : chars)
      bytes.push_back(static_cast<std::byte>(c));
  };
  append([](proto::Request::Builder r) { r.initHello().setVersion(proto::PROTOCOL_VERSION); });
  append([](proto::Request::Builder r) { r.setOpen(0); });
  return bytes;
}

/// The server's replies, one line each (EMBER_FUZZ_VERBOSE): errors in full, the rest by kind.
void print_replies(std::span<const std::byte> written) {
  ember::fuzz::MemoryStream replies(written);
  try {
    for (;;) {
      ember::wire::Received message = ember::wire::read_message(
          [&](std::span<std::byte> bytes) { replies.read_exactly(bytes); }, 1 << 30, "replies");
      const auto reply = message.root<proto::Reply>();
      if (reply.isError()) {
        std::fprintf(stderr, "reply: error: %s\n", reply.getError().cStr());
      } else if (reply.isMeta()) {  // the tensor's bytes follow
        const auto bytes = ember::checked_tensor_bytes(ember::wire::decode_shape(reply.getMeta()),
                                                       ember::wire::decode_dtype(reply.getMeta()));
        std::vector<std::byte> skipped(static_cast<std::size_t>(bytes.value_or(0)));
        replies.read_exactly(skipped);
        std::fprintf(stderr, "reply: a tensor of %zu bytes\n", skipped.size());
      } else {
        std::fprintf(stderr, "reply: %d\n", static_cast<int>(reply.which()));
      }
    }
  } catch (const ember::ExecutionError&) {  // the replies' end
  }
}

ember::ServeOptions fuzz_options() {
  ember::ServeOptions options;
  options.devices = {ember::Device::ndarray()};
  // The server's limits, but a session's bytes at 1 MiB rather than 16 GiB. That bounds each
  // op's work, so that an input of a few ops runs in well under -timeout even instrumented; and
  // any allocation of a kernel over libFuzzer's malloc limit (2 GB), 2000 times what the session
  // may hold, is a crash: the kind of amplification a limit on the session's bytes must not let
  // through.
  options.max_session_bytes = std::size_t{1} << 20;
  options.log = [](const std::string& line) {
    if (verbose()) std::fprintf(stderr, "%s\n", line.c_str());
    if (line.find(ember::serve::kClosedAfterAnError) == std::string::npos) return;
    std::fprintf(stderr, "ember fuzz target: %s\n", line.c_str());
    ember::fuzz::require(false, "a client's bytes end its connection with an ember::Error only");
  };
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const std::vector<std::byte> prefix = handshake();
  std::vector<std::byte> input = prefix;
  const std::span<const std::byte> given = ember::fuzz::input_bytes(data, size);
  input.insert(input.end(), given.begin(), given.end());
  ember::serve::Shared shared(fuzz_options());
  ember::fuzz::MemoryStream stream(input, verbose());
  // On a thread of its own, as the server serves each connection: the blocks the thread keeps
  // for reuse (core/recycled.h, core/thread_kept.h) are freed when it ends, not counted as a leak
  // of this input.
  std::thread connection([&] { ember::serve::serve_stream(stream, shared); });
  connection.join();
  if (verbose()) print_replies(stream.written_bytes());
  ember::fuzz::require(shared.sessions.load() == 0 && shared.bytes.load() == 0,
                       "a session that ends frees every tensor it held");
  return 0;
}
