#include "backends/remote/batch_sender.h"

#include <capnp/message.h>
#include <capnp/serialize.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "wire/op_codec.h"

namespace ember::backend::remote {
namespace {

/// The bit of an input reference that names an output of the sequence itself (protocol.capnp).
constexpr uint64_t kInternal = uint64_t{1} << 63;

/// How a sequence names the tensors it reads: an outside tensor by its index among the sequence's
/// externals (in order of first use), an output of the batch by its index with kInternal.
class References {
 public:
  explicit References(uint64_t first_output) : first_output_(first_output) {}

  /// id's reference, taking it as the next external if the batch reads it first here.
  uint64_t add(uint64_t id) {
    if (id >= first_output_) return kInternal | (id - first_output_);
    const auto [found, added] = external_index_.try_emplace(id, externals_.size());
    if (added) externals_.push_back(id);
    return found->second;
  }
  /// id's reference where the batch reads or makes it.
  std::optional<uint64_t> find(uint64_t id) const {
    if (id >= first_output_) return kInternal | (id - first_output_);
    const auto found = external_index_.find(id);
    if (found == external_index_.end()) return std::nullopt;
    return found->second;
  }
  const std::vector<uint64_t>& externals() const { return externals_; }

 private:
  uint64_t first_output_;
  std::vector<uint64_t> externals_;
  std::unordered_map<uint64_t, uint64_t> external_index_;
};

/// Writes batch as a sequence, naming its inputs in references.
void encode_sequence(std::span<const QueuedOp> batch, References& references,
                     proto::Sequence::Builder sequence) {
  auto calls = sequence.initCalls(static_cast<unsigned>(batch.size()));
  for (unsigned i = 0; i < batch.size(); ++i) {
    wire::encode_op(batch[i].op, calls[i]);
    auto inputs = calls[i].initInputs(static_cast<unsigned>(batch[i].inputs.size()));
    for (unsigned k = 0; k < batch[i].inputs.size(); ++k)
      inputs.set(k, references.add(batch[i].inputs[k]));
    calls[i].initOutputs(static_cast<unsigned>(batch[i].outputs.size()));  // zeros: a count
  }
  sequence.setExternals(static_cast<uint32_t>(references.externals().size()));
}

/// The references of the tensors of released that the batch reads or makes, sorted (the form of a
/// step's batch is then the same every step).
std::vector<uint64_t> dead_references(std::span<const uint64_t> released,
                                      const References& references) {
  std::vector<uint64_t> dead;
  for (uint64_t id : released)
    if (const auto reference = references.find(id)) dead.push_back(*reference);
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
  const uint64_t first_output = batch.front().outputs.front();
  References references(first_output);
  encode_sequence(batch, references, sequence);
  const std::vector<uint64_t> dead = dead_references(released, references);
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
  const std::vector<uint64_t>& externals = references.externals();
  replay.setInputs(kj::arrayPtr(externals.data(), externals.size()));
  replay.setFirstOutput(first_output);
  link.send(message);
  std::erase_if(released, [&](uint64_t id) { return references.find(id).has_value(); });
}

}  // namespace ember::backend::remote
