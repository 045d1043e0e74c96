#include "remote/remote_test_util.h"

#include <chrono>
#include <thread>

#include "ember/error.h"
#include "wire/meta_codec.h"
#include "wire/op_codec.h"

namespace ember::test {

ServeOptions test_server_options() {
  ServeOptions options;
  options.devices = {Device::cpu()};
  options.log = [](const std::string&) {};
  return options;
}

std::string loopback(const Server& server) {
  return "127.0.0.1:" + std::to_string(server.port());
}

void wait_until_sessions_closed(const Server& server) {
  for (int wait = 0; wait < 500 && server.open_sessions() > 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

RawSession::RawSession(const std::string& address, const RemoteAccess& access)
    : link_(address, access) {}

void RawSession::open(uint32_t device) {
  capnp::MallocMessageBuilder request;
  request.initRoot<proto::Request>().setOpen(device);
  link_.call(request);
}

void RawSession::upload(uint64_t id, const TensorData& data) {
  upload_bytes(id, data.shape(), data.dtype(), data.bytes());
}

void RawSession::upload_bytes(uint64_t id, const Shape& shape, DType dtype,
                              std::span<const std::byte> bytes) {
  capnp::MallocMessageBuilder begin;
  auto upload = begin.initRoot<proto::Request>().initUpload();
  upload.setId(id);
  wire::encode_meta(shape, dtype, upload.initMeta());
  link_.send(begin, bytes);
}

void RawSession::run(const ir::Op& op, std::vector<uint64_t> inputs,
                     std::vector<uint64_t> outputs) {
  capnp::MallocMessageBuilder message;
  auto call = message.initRoot<proto::Request>().initRun(1)[0];
  wire::encode_op(op, call);
  call.setInputs(kj::arrayPtr(inputs.data(), inputs.size()));
  call.setOutputs(kj::arrayPtr(outputs.data(), outputs.size()));
  link_.send(message);
}

TensorData RawSession::download(uint64_t id) {
  capnp::MallocMessageBuilder request;
  request.initRoot<proto::Request>().setDownload(id);
  wire::Received meta = link_.call(request);
  const auto reply = meta.root<proto::Reply>();
  const Shape shape = wire::decode_shape(reply.getMeta());
  const DType dtype = wire::decode_dtype(reply.getMeta());
  std::vector<std::byte> bytes(static_cast<std::size_t>(shape.num_elements()) * dtype_size(dtype));
  link_.receive_bytes(bytes);
  return TensorData(std::move(bytes), shape, dtype);
}

std::string RawSession::sync_error() {
  capnp::MallocMessageBuilder request;
  request.initRoot<proto::Request>().setSync();
  try {
    link_.call(request);
    return "";
  } catch (const ExecutionError& e) {
    return e.what();
  }
}

}  // namespace ember::test
