// Grouping: how a stream's pending work splits into fused programs. Only the needed ops run —
// those whose result is live and the ops they depend on; an op nobody holds and nobody needs is
// dropped. The needed ops form one group per output shape (maximal: every queued op of that
// shape, chained or not, joins it), and a group is one pass over its shape. Broadcasting only
// grows shapes, so groups depend on each other without cycles; a value one group computes and
// another reads is stored as an output of the first (the only intermediate ever written).
#pragma once

#include <cstdint>
#include <vector>

#include "ember/shape.h"
#include "fusion/pending_work.h"
#include "fusion/program.h"

namespace ember::fusion {

/// One fused program to run, in terms of the pending work it comes from.
struct Group {
  Shape shape;
  /// Program input k: an external buffer or an op of an earlier group, in order of first use.
  std::vector<ValueRef> inputs;
  /// Instruction j computes queued op ops[j] (in submission order) ...
  std::vector<uint32_t> ops;
  /// ... reading args[j].
  std::vector<std::vector<Ref>> args;
  /// The instructions whose results are stored: live, or read by a later group.
  std::vector<uint32_t> outputs;
};

/// The groups of work in an order where every group's inputs are computed before it runs.
/// live[i]: whether queued op i's result is held outside the queue.
std::vector<Group> split_into_groups(const PendingWork& work, const std::vector<bool>& live);

}  // namespace ember::fusion
