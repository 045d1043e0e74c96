#include "backends/remote/remote_link.h"

#include <cstdlib>
#include <string>

#include "ember/error.h"

namespace ember::backend::remote {
namespace {

/// The client accepts replies up to this size (a download's bytes follow its reply unframed).
constexpr std::size_t kMaxReplyBytes = std::size_t{64} << 20;

}  // namespace

std::chrono::milliseconds remote_timeout() {
  const char* text = std::getenv("EMBER_REMOTE_TIMEOUT_MS");
  if (text == nullptr || *text == '\0') return std::chrono::seconds(60);
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value <= 0)
    throw ConfigError(std::string("[remote] EMBER_REMOTE_TIMEOUT_MS='") + text +
                      "' is not a positive number of milliseconds");
  return std::chrono::milliseconds(value);
}

/// given, or the variable's value where given is empty.
std::string or_environment(const std::string& given, const char* variable) {
  if (!given.empty()) return given;
  const char* from_environment = std::getenv(variable);
  return from_environment != nullptr ? from_environment : "";
}

RemoteAccess access_or_environment(const RemoteAccess& access) {
  return {or_environment(access.credential, "EMBER_REMOTE_CREDENTIAL"),
          or_environment(access.tls_trusted, "EMBER_REMOTE_TLS_TRUSTED")};
}

void throw_if_error(proto::Reply::Reader reply, const std::string& address) {
  if (reply.isError())
    throw ExecutionError("[remote://" + address + "] " + std::string(reply.getError().cStr()));
}

Link::Link(const std::string& address, const RemoteAccess& given)
    : address_(address), socket_(wire::Socket::connect(address, remote_timeout())) {
  const RemoteAccess access = access_or_environment(given);
  if (!access.tls_trusted.empty()) {
    tls_ = std::make_unique<wire::TlsStream>(socket_, *wire::TlsContext::client(access.tls_trusted),
                                             wire::split_address(address).first);
  }
  channel_ = std::make_unique<wire::Channel>(tls_ ? static_cast<wire::Stream&>(*tls_) : socket_,
                                             kMaxReplyBytes);
  capnp::MallocMessageBuilder hello;
  auto fields = hello.initRoot<proto::Request>().initHello();
  fields.setVersion(proto::PROTOCOL_VERSION);
  fields.setCredential(access.credential);
  channel_->send(hello);
  wire::Received reply = channel_->receive();
  const auto root = reply.root<proto::Reply>();
  if (root.isError())
    throw ConfigError("[remote://" + address + "] the server refused the connection: " +
                      std::string(root.getError().cStr()));
}

template <typename F>
decltype(auto) Link::guarded(F&& f) {
  if (!broken_.empty())
    throw ExecutionError("[remote://" + address_ + "] the connection is lost: " + broken_);
  try {
    return wire::rethrow_malformed(f);
  } catch (const ExecutionError& e) {
    broken_ = e.what();
    socket_.shutdown();
    throw;
  } catch (const InvalidArgument& e) {  // the server's bytes are malformed
    broken_ = e.what();
    socket_.shutdown();
    throw ExecutionError(e.what());
  }
}

std::vector<HostedDevice> Link::list_devices() {
  capnp::MallocMessageBuilder request;
  request.initRoot<proto::Request>().setListDevices();
  wire::Received reply = call(request);
  return guarded([&] {
    std::vector<HostedDevice> devices;
    for (auto device : reply.root<proto::Reply>().getDevices()) {
      HostedDevice& hosted = devices.emplace_back();
      hosted.name = device.getName().cStr();
      for (uint8_t dtype : device.getDtypes())
        if (dtype < std::size(kAllDTypes)) hosted.dtypes.push_back(static_cast<DType>(dtype));
    }
    return devices;
  });
}

void Link::send(capnp::MessageBuilder& request, std::span<const std::byte> trailing) {
  guarded([&] { channel_->send(request, trailing); });
}

void Link::receive_bytes(std::span<std::byte> bytes) {
  guarded([&] { channel_->receive_bytes(bytes); });
}

wire::Received Link::call(capnp::MessageBuilder& request) {
  send(request);
  return receive_reply();
}

wire::Received Link::receive_reply() {
  wire::Received reply = guarded([&] {
    wire::Received received = channel_->receive();
    (void)received.root<proto::Reply>().which();  // a malformed root breaks the connection here
    return received;
  });
  // An error reply (an op that failed on the server) leaves the connection usable.
  throw_if_error(reply.root<proto::Reply>(), address_);
  return reply;
}

}  // namespace ember::backend::remote
