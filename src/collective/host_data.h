// The host side of the collectives: a rank's tensor as TensorData, reduced, cut and joined along
// dim 0 on the host. Shared by the in-process path (every rank's copy) and the cross-process one
// (the process's partial result).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ember/collective.h"
#include "ember/tensor_data.h"

namespace ember::collective {

/// What a rank asked for: the collective, its op or root, and its tensor's shape and dtype. The
/// ranks of one call must agree on all of it.
struct Call {
  std::string name;  ///< "all_reduce", ...: the message's op name
  int argument = 0;  ///< the ReduceOp, or broadcast's root
  Shape shape;
  DType dtype = DType::F32;

  friend bool operator==(const Call&, const Call&) = default;
};

/// "[4, 2] f32 (op 0)" for messages.
std::string describe(const Call& call);

/// InvalidArgument "[<name>] ..." unless every call equals the first; labels[i] names call i
/// ("local rank 1", "process 2").
void check_same_calls(std::span<const Call> calls, std::span<const std::string> labels);

/// InvalidArgument "[<name>] ..." when data's dtype cannot be reduced with op (Bool; Mean of an
/// integer dtype).
void check_reducible(const std::string& name, DType dtype, ReduceOp op);

/// The dtype values are reduced in: f32 for f16 and bf16 (then rounded once at the end), else
/// dtype itself.
DType accumulation_dtype(DType dtype);

/// acc = acc op x elementwise (same shape, dtype accumulation_dtype), Mean summing.
void reduce_into(TensorData& acc, const TensorData& x, ReduceOp op);

/// data / count elementwise (a Float dtype): Mean's last step.
void divide(TensorData& data, int64_t count);

/// The rows [part * n / parts, (part + 1) * n / parts) of data's dim 0 (n a multiple of parts).
TensorData rows(const TensorData& data, int64_t part, int64_t parts);

/// parts (same dtype and dims past the first) joined along dim 0, in order.
TensorData concat_rows(std::span<const TensorData> parts);

}  // namespace ember::collective
