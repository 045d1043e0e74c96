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
/// The values of a list of integers (capnp's iterators are not the standard library's).
template <typename T>
std::vector<T> to_vector(typename capnp::List<T>::Reader list) {
  std::vector<T> values;
  values.reserve(list.size());
  for (T value : list)
    values.push_back(value);
  return values;
}
/// meta's shape (dims as sent: the caller checks them).
Shape decode_shape(proto::Meta::Reader meta);
/// meta's dtype; InvalidArgument "[remote] unknown dtype N" when it names none.
DType decode_dtype(proto::Meta::Reader meta);

}  // namespace ember::wire
