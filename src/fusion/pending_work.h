// PendingWork: what a stream has queued and not executed yet — the fusible ops in submission
// order and the already computed buffers they read.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "fusion/arg_list.h"
#include "ir/ops.h"

namespace ember::fusion {

class LazyBuffer;

/// An argument of a queued op: an external buffer (computed, an inner backend's) or the result
/// of an earlier queued op, by index.
struct ValueRef {
  enum class Kind : uint8_t { External, Queued };
  Kind kind;
  uint32_t index;
  friend bool operator==(const ValueRef&, const ValueRef&) = default;
};

struct QueuedOp {
  ir::Op op;
  ArgList<ValueRef> args;
  ir::TensorMeta output;
  /// The lazy buffer handed out for the result. Weak: the result is live (must be stored) only
  /// while something outside the queue holds it.
  std::weak_ptr<LazyBuffer> result;
};

struct PendingWork {
  /// The inner buffers queued ops read, each once.
  std::vector<backend::Operand> externals;
  std::vector<QueuedOp> ops;

  /// Empties the work, keeping the vectors' memory for the next batch of ops.
  void clear() {
    externals.clear();
    ops.clear();
  }

  /// The metadata of an argument.
  const ir::TensorMeta& meta_of(ValueRef ref) const {
    return ref.kind == ValueRef::Kind::External ? externals[ref.index].meta : ops[ref.index].output;
  }
};

}  // namespace ember::fusion
