// The client's end of one connection to `ember serve`: the handshake, then requests and their
// replies. A reply carrying an error becomes an ExecutionError with the server's message; a
// connection that fails once is closed for good, and every later call says why.
#pragma once

#include <capnp/message.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ember/dispatch_device.h"
#include "ember/dtype.h"
#include "wire/channel.h"
#include "wire/protocol.capnp.h"
#include "wire/socket.h"
#include "wire/tls.h"

namespace ember::backend::remote {

namespace proto = wire::proto;

/// A device as the server describes it.
struct HostedDevice {
  std::string name;
  std::vector<DType> dtypes;
};

/// How long the client waits for the server before the call fails (EMBER_REMOTE_TIMEOUT_MS; 60 s
/// by default).
std::chrono::milliseconds remote_timeout();
/// access, where empty completed from EMBER_REMOTE_CREDENTIAL and EMBER_REMOTE_TLS_TRUSTED.
RemoteAccess access_or_environment(const RemoteAccess& access);

class Link {
 public:
  /// Connects to address ("host:port"), over TLS where access trusts certificates, and says
  /// hello with access's credential. ExecutionError when the server cannot be reached (or its
  /// certificate does not verify); ConfigError when it refuses the version or the credential.
  Link(const std::string& address, const RemoteAccess& access);

  /// The devices the server hosts.
  std::vector<HostedDevice> list_devices();
  /// Sends request, which has no reply, followed by trailing (an upload's bytes).
  void send(capnp::MessageBuilder& request, std::span<const std::byte> trailing = {});
  /// Sends request and returns its reply; ExecutionError carrying the server's message when the
  /// reply is an error.
  wire::Received call(capnp::MessageBuilder& request);
  /// The next reply (of a request answered by several).
  wire::Received receive_reply();
  /// The bytes that follow a reply (a download's).
  void receive_bytes(std::span<std::byte> bytes);

  const std::string& address() const { return address_; }

 private:
  /// Runs f on the connection; after a failure, every later call throws the first one's message.
  template <typename F>
  decltype(auto) guarded(F&& f);

  std::string address_;
  wire::Socket socket_;
  std::unique_ptr<wire::TlsStream> tls_;  // null: plain TCP
  std::unique_ptr<wire::Channel> channel_;
  std::string broken_;  // why the connection is no longer usable
};

/// The reply's error as an ExecutionError "[remote://address] message" (does nothing for
/// another reply).
void throw_if_error(proto::Reply::Reader reply, const std::string& address);

}  // namespace ember::backend::remote
