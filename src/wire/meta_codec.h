// A tensor's shape and dtype in the remote protocol (proto::Meta), written and read in one place
// for the client and the server.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/dtype.h"
#include "ember/shape.h"
#include "wire/protocol.capnp.h"

namespace ember::wire {

void encode_meta(const Shape& shape, DType dtype, proto::Meta::Builder meta);
/// The dims of a list of int64.
std::vector<int64_t> decode_ints(capnp::List<int64_t>::Reader list);
/// meta's shape (dims as sent: the caller checks them).
Shape decode_shape(proto::Meta::Reader meta);
/// meta's dtype; InvalidArgument "[remote] unknown dtype N" when it names none.
DType decode_dtype(proto::Meta::Reader meta);

}  // namespace ember::wire
