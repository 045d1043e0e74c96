// Helpers of the remote tests: a server on loopback, and a raw session that speaks the protocol
// directly (through the client's Link) to send what the remote backend never would.
#pragma once

#include <capnp/message.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/remote/remote_link.h"
#include "ember/serve.h"
#include "ember/tensor_data.h"
#include "ir/ops.h"
#include "wire/protocol.capnp.h"

namespace ember::test {

namespace proto = wire::proto;

/// Options of a test server on loopback serving cpu, its log kept out of the test's output.
ServeOptions test_server_options();
/// "127.0.0.1:port".
std::string loopback(const Server& server);

/// Waits (up to 5 s) until the server has closed every session its clients left.
void wait_until_sessions_closed(const Server& server);

/// A protocol session of its own: hello (by the Link), then open, upload, run, download.
class RawSession {
 public:
  explicit RawSession(const std::string& address, const RemoteAccess& access = {});
  void open(uint32_t device);
  void upload(uint64_t id, const TensorData& data);
  /// An upload of a tensor of shape and dtype whose bytes are bytes, as a client may send them
  /// (a Bool byte other than 0 or 1 included).
  void upload_bytes(uint64_t id, const Shape& shape, DType dtype, std::span<const std::byte> bytes);
  void run(const ir::Op& op, std::vector<uint64_t> inputs, std::vector<uint64_t> outputs);
  TensorData download(uint64_t id);
  /// Sends a sync and returns the server's error, or "" when it replies ok.
  std::string sync_error();
  backend::remote::Link& link() { return link_; }

 private:
  backend::remote::Link link_;
};

}  // namespace ember::test
