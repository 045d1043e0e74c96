#include "backends/remote/batch_sender.h"

#include <capnp/message.h>
#include <capnp/serialize.h>

#include "wire/op_codec.h"

namespace ember::backend::remote {
namespace {

/// The bit of an input reference that names an output of the sequence itself (protocol.capnp).
constexpr uint64_t kInternal = uint64_t{1} << 63;

/// Writes batch as a sequence: each input an earlier output of the batch (its index, with
/// kInternal) or an outside tensor (its index in the returned list, in order of first use).
std::vector<uint64_t> encode_sequence(std::span<const QueuedOp> batch,
                                      proto::Sequence::Builder sequence) {
  const uint64_t first_output = batch.front().outputs.front();
  std::vector<uint64_t> externals;
  std::unordered_map<uint64_t, uint64_t> external_index;
  auto calls = sequence.initCalls(static_cast<unsigned>(batch.size()));
  for (unsigned i = 0; i < batch.size(); ++i) {
    wire::encode_op(batch[i].op, calls[i]);
    auto inputs = calls[i].initInputs(static_cast<unsigned>(batch[i].inputs.size()));
    for (unsigned k = 0; k < batch[i].inputs.size(); ++k) {
      const uint64_t id = batch[i].inputs[k];
      if (id >= first_output) {
        inputs.set(k, kInternal | (id - first_output));
        continue;
      }
      const auto [found, added] = external_index.try_emplace(id, externals.size());
      if (added) externals.push_back(id);
      inputs.set(k, found->second);
    }
    calls[i].initOutputs(static_cast<unsigned>(batch[i].outputs.size()));  // zeros: a count
  }
  sequence.setExternals(static_cast<uint32_t>(externals.size()));
  return externals;
}

/// The bytes of message, as a key.
std::string encoding_of(capnp::MessageBuilder& message) {
  const kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
  const auto bytes = words.asChars();
  return {bytes.begin(), bytes.size()};
}

}  // namespace

void BatchSender::send(std::span<const QueuedOp> batch, Link& link) {
  capnp::MallocMessageBuilder definition;
  auto sequence = definition.initRoot<proto::Request>().initDefine();
  const std::vector<uint64_t> externals = encode_sequence(batch, sequence);
  std::string form = encoding_of(definition);  // with id 0: the form alone
  auto kept = kept_.find(form);
  if (kept == kept_.end()) {
    if (kept_.size() >= kMaxKept) {  // a plain run, as the batch is
      capnp::MallocMessageBuilder message;
      auto calls = message.initRoot<proto::Request>().initRun(static_cast<unsigned>(batch.size()));
      for (unsigned i = 0; i < batch.size(); ++i) {
        wire::encode_op(batch[i].op, calls[i]);
        calls[i].setInputs(kj::arrayPtr(batch[i].inputs.data(), batch[i].inputs.size()));
        calls[i].setOutputs(kj::arrayPtr(batch[i].outputs.data(), batch[i].outputs.size()));
      }
      return link.send(message);
    }
    kept = kept_.emplace(std::move(form), kept_.size() + 1).first;
    sequence.setId(kept->second);
    link.send(definition);
  }
  capnp::MallocMessageBuilder message;
  auto replay = message.initRoot<proto::Request>().initReplay();
  replay.setSequence(kept->second);
  replay.setInputs(kj::arrayPtr(externals.data(), externals.size()));
  replay.setFirstOutput(batch.front().outputs.front());
  link.send(message);
}

}  // namespace ember::backend::remote
