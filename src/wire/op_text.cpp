#include "wire/op_text.h"

#include <capnp/message.h>
#include <capnp/serialize-text.h>

#include <algorithm>
#include <string>

#include "ember/error.h"
#include "ir/rules.h"
#include "wire/op_codec.h"

namespace ember::wire {
namespace {

/// An op's text nests a group in a group at most this deep (a list of aggregates: Pool inside
/// AvgPoolGrad). Deeper text is refused before Cap'n Proto's recursive parser sees it, which a
/// hostile file could otherwise drive through the stack.
constexpr int kMaxNesting = 8;

void check_nesting(std::string_view text) {
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') depth = std::max(depth - 1, 0);  // a stray closer opens nothing
    if (depth > kMaxNesting) {
      throw InvalidArgument(
          ir::rules::concat("[graph] op text nested deeper than ", kMaxNesting, " levels"));
    }
  }
}

}  // namespace

std::string op_to_text(const ir::Op& op) {
  capnp::MallocMessageBuilder message;
  auto call = message.initRoot<proto::OpCall>();
  encode_op(op, call);
  return capnp::TextCodec().encode(call.asReader()).cStr();
}

ir::Op op_from_text(std::string_view text) {
  check_nesting(text);
  const std::string terminated(text);  // kj::StringPtr needs the NUL
  capnp::MallocMessageBuilder message;
  auto call = message.initRoot<proto::OpCall>();
  try {
    capnp::TextCodec().decode(terminated.c_str(), capnp::toDynamic(call));
  } catch (const kj::Exception& e) {
    throw InvalidArgument("[graph] malformed op text: " + std::string(e.getDescription().cStr()));
  }
  return decode_op(call.asReader());
}

}  // namespace ember::wire
