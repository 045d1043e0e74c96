#include "backends/remote/batch_sender.h"

#include <capnp/message.h>
#include <capnp/serialize.h>

#include <algorithm>

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

/// The ids of released from first_output on (the batch's own), as sorted output indices of the
/// sequence (sorted: the form of a step's batch is then the same every step).
std::vector<uint64_t> dead_outputs(std::span<const uint64_t> released, uint64_t first_output) {
  std::vector<uint64_t> dead;
  for (uint64_t id : released)
    if (id >= first_output) dead.push_back(id - first_output);
  std::ranges::sort(dead);
  return dead;
}

/// The bytes of message, as a key.
std::string encoding_of(capnp::MessageBuilder& message) {
  const kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
  const auto bytes = words.asChars();
  return {bytes.begin(), bytes.size()};
}

}  // namespace

void BatchSender::send(std::span<const QueuedOp> batch, std::vector<uint64_t>& released,
                       Link& link) {
  capnp::MallocMessageBuilder definition;
  auto sequence = definition.initRoot<proto::Request>().initDefine();
  const std::vector<uint64_t> externals = encode_sequence(batch, sequence);
  const uint64_t first_output = batch.front().outputs.front();
  const std::vector<uint64_t> dead = dead_outputs(released, first_output);
  sequence.setDead(kj::arrayPtr(dead.data(), dead.size()));
  std::string form = encoding_of(definition);  // with id 0: the form alone
  auto kept = kept_.find(form);
  if (kept == kept_.end()) {
    if (kept_.size() >= kMaxKept) {  // a plain run, as the batch is; released all go after it
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
  replay.setFirstOutput(first_output);
  link.send(message);
  std::erase_if(released, [&](uint64_t id) { return id >= first_output; });
}

}  // namespace ember::backend::remote
