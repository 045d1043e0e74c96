// Fuzzes what `ember serve` makes of a client's bytes before any op runs: the message framing
// (segment table, size limit), Cap'n Proto's reader, and the decoding of every request: the
// ops of a run (wire/op_codec: an op's index and members) checked by ir::infer against inputs of
// a fixed shape, the tensor metadata of an upload, and a configure's settings. Bad input is refused
// with an ember::Error; an op that decodes is encoded again to an op that decodes the same.
#include <capnp/message.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "ember/tensor_bytes.h"
#include "fuzz_support.h"
#include "ir/ops.h"
#include "wire/channel.h"
#include "wire/meta_codec.h"
#include "wire/op_codec.h"
#include "wire/protocol.capnp.h"
#include "wire/settings_codec.h"

namespace {

using ember::fuzz::require;
namespace proto = ember::wire::proto;

/// The bytes of the input, read as a stream; its end is a truncated message.
struct Cursor {
  std::span<const std::byte> left;
  void operator()(std::span<std::byte> bytes) {
    if (bytes.size() > left.size())
      throw ember::InvalidArgument("[remote fuzz] the message is truncated");
    if (bytes.empty()) return;
    std::memcpy(bytes.data(), left.data(), bytes.size());
    left = left.subspan(bytes.size());
  }
};

/// The op of call again, through the encoder: decoding it must give an op that encodes the same.
void check_round_trip(const ember::ir::Op& op) {
  capnp::MallocMessageBuilder first;
  ember::wire::encode_op(op, first.initRoot<proto::OpCall>());
  const ember::ir::Op again = ember::wire::decode_op(first.getRoot<proto::OpCall>().asReader());
  capnp::MallocMessageBuilder second;
  ember::wire::encode_op(again, second.initRoot<proto::OpCall>());
  const kj::Array<capnp::word> once = capnp::messageToFlatArray(first);
  const kj::Array<capnp::word> twice = capnp::messageToFlatArray(second);
  require(once.asBytes() == twice.asBytes(), "a decoded op encodes to the same message twice");
}

/// Settings that decoded encode to settings that decode the same.
void check_round_trip(const ember::DeviceSettings& settings) {
  capnp::MallocMessageBuilder message;
  ember::wire::encode_settings(settings, message.initRoot<proto::Settings>());
  require(ember::wire::decode_settings(message.getRoot<proto::Settings>().asReader()) == settings,
          "decoded settings encode to the same settings");
}

void decode_call(proto::OpCall::Reader call) {
  const ember::ir::Op op = ember::wire::decode_op(call);
  check_round_trip(op);
  // Inputs as a session might hold them: every id names a [2, 3] f32 tensor.
  const std::vector<ember::ir::TensorMeta> inputs(std::min<std::size_t>(call.getInputs().size(), 8),
                                                  {ember::Shape{2, 3}, ember::DType::F32});
  ember::ir::infer(op, inputs);
}

void decode_request(proto::Request::Reader request, Cursor& cursor) {
  switch (request.which()) {
    case proto::Request::RUN:
      for (proto::OpCall::Reader call : request.getRun()) {
        ember::fuzz::parsed_or_refused([&] {
          decode_call(call);
          return 0;
        });
      }
      return;
    case proto::Request::UPLOAD: {  // the tensor's bytes follow, as many as its meta counts
      const auto meta = request.getUpload().getMeta();
      const auto bytes = ember::checked_tensor_bytes(ember::wire::decode_shape(meta),
                                                     ember::wire::decode_dtype(meta));
      if (!bytes) throw ember::InvalidArgument("[remote fuzz] an invalid upload");
      std::vector<std::byte> values(
          std::min<std::size_t>(static_cast<std::size_t>(*bytes), cursor.left.size() + 1));
      cursor(values);
      return;
    }
    case proto::Request::DEFINE:
      for (proto::OpCall::Reader call : request.getDefine().getCalls()) {
        ember::fuzz::parsed_or_refused([&] {
          decode_call(call);
          return 0;
        });
      }
      return;
    case proto::Request::FUSES: {  // an op and its inputs' metadata, checked by ir::infer
      const ember::ir::Op op = ember::wire::decode_op(request.getFuses().getCall());
      check_round_trip(op);
      std::vector<ember::ir::TensorMeta> inputs;
      for (proto::Meta::Reader meta : request.getFuses().getInputs())
        inputs.push_back({ember::wire::decode_shape(meta), ember::wire::decode_dtype(meta)});
      ember::ir::infer(op, inputs);
      return;
    }
    case proto::Request::HELLO:
      (void)request.getHello().getCredential().size();
      return;
    case proto::Request::CONFIGURE:
      check_round_trip(ember::wire::decode_settings(request.getConfigure()));
      return;
    default:  // the other requests carry numbers or nothing
      return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Cursor cursor{ember::fuzz::input_bytes(data, size)};
  while (!cursor.left.empty()) {
    const bool read = ember::fuzz::parsed_or_refused([&] {
                        ember::wire::Received message =
                            ember::wire::read_message(cursor, 1 << 16, "fuzz");
                        ember::wire::rethrow_malformed(
                            [&] { decode_request(message.root<proto::Request>(), cursor); });
                        return true;
                      }).has_value();
    if (!read) break;  // the stream cannot go on after a refused message
  }
  return 0;
}
