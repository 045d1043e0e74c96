#include "backends/remote/fused_answers.h"

#include <capnp/serialize.h>

#include "ember/error.h"
#include "wire/meta_codec.h"
#include "wire/op_codec.h"

namespace ember::backend::remote {
namespace {

/// Answers kept before they are forgotten and asked again: a model asks about a few forms.
constexpr std::size_t kMaxAnswers = 4096;

}  // namespace

bool FusedAnswers::fuses(Link& link, const ir::Op& op, std::span<const ir::TensorMeta> inputs) {
  capnp::MallocMessageBuilder request;
  auto query = request.initRoot<proto::Request>().initFuses();
  wire::encode_op(op, query.initCall());
  auto metas = query.initInputs(static_cast<unsigned>(inputs.size()));
  for (unsigned i = 0; i < inputs.size(); ++i)
    wire::encode_meta(inputs[i].shape, inputs[i].dtype, metas[i]);
  const kj::Array<capnp::word> words = capnp::messageToFlatArray(request);
  const kj::ArrayPtr<const char> bytes = words.asChars();
  std::string key(bytes.begin(), bytes.size());
  if (const auto found = answers_.find(key); found != answers_.end()) return found->second;
  wire::Received reply = link.call(request);
  const auto root = reply.root<proto::Reply>();
  if (!root.isAnswer())
    throw ExecutionError("[remote://" + link.address() +
                         "] the server's answer to fuses is not a yes or no");
  if (answers_.size() >= kMaxAnswers) answers_.clear();
  answers_.emplace(std::move(key), root.getAnswer());
  return root.getAnswer();
}

}  // namespace ember::backend::remote
