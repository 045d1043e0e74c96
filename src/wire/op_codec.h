// ir ops to and from the remote protocol's OpCall (protocol.capnp), derived from the op structs
// themselves (ir/op_fields.h): an op is its alternative's index in ir::Op and its members in
// declaration order, so a new op needs nothing here.
#pragma once

#include "ir/ops.h"
#include "wire/protocol.capnp.h"

namespace ember::wire {

/// Writes op's index and members into call (its inputs and outputs are the caller's).
void encode_op(const ir::Op& op, proto::OpCall::Builder call);
/// The op call describes. Throws InvalidArgument "[remote] ..." naming what does not fit an op
/// struct (an unknown op, a missing member, a member of the wrong kind, a value out of range of
/// its type). Values in range are left to ir::infer, which checks them as for a local op.
ir::Op decode_op(proto::OpCall::Reader call);

}  // namespace ember::wire
