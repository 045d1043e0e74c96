// Grouping: how a stream's pending work splits into fused programs. Only the needed ops run —
// those whose result is live and the ops they depend on; an op nobody holds and nobody needs is
// dropped. The needed ops form one group per output shape (maximal: every queued op of that
// shape, chained or not, joins it), and a group is one pass over its shape. Broadcasting only
// grows shapes, so groups depend on each other without cycles; a value one group computes and
// another reads is stored as an output of the first (the only intermediate ever written).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ember/shape.h"
#include "fusion/arg_list.h"
#include "fusion/pending_work.h"
#include "ir/program.h"

namespace ember::fusion {

/// One fused program to run, in terms of the pending work it comes from.
struct Group {
  Shape shape;
  /// Program input k: an external buffer or an op of an earlier group, in order of first use.
  std::vector<ValueRef> inputs;
  /// Instruction j computes queued op ops[j] (in submission order) ...
  std::vector<uint32_t> ops;
  /// ... reading args[j].
  std::vector<ArgList<ir::ProgramRef>> args;
  /// The instructions whose results are stored: live, or read by a later group.
  std::vector<uint32_t> outputs;
};

/// Splits pending work into groups. Note: a stream keeps one Grouping for all its executions and
/// the groups' memory is reused, so that once warm, grouping allocates nothing: on tiny tensors
/// heap allocations are a large part of an op's cost.
class Grouping {
 public:
  /// What grouping learns about one queued op.
  struct OpPlan {
    static constexpr int32_t kNoGroup = -1;
    bool needed = false;       ///< live, or an argument of a needed op
    bool stored = false;       ///< live, or read by an op of another group
    int32_t group = kNoGroup;  ///< kNoGroup when not needed
    uint32_t instruction = 0;  ///< its instruction in its group
  };

  /// The groups of work in an order where every group's inputs are computed before it runs.
  /// live[i]: whether queued op i's result is held outside the queue. Valid until the next call.
  std::span<const Group> split(const PendingWork& work, const std::vector<bool>& live);

 private:
  void plan_ops(const PendingWork& work, const std::vector<bool>& live);
  void mark_needed(const PendingWork& work, const std::vector<bool>& live);
  void group_by_shape(const PendingWork& work);
  void mark_stored(const PendingWork& work, const std::vector<bool>& live);
  /// The group numbers ordered so that each comes after the groups whose values it reads.
  void order_groups(const PendingWork& work);
  /// Sets group to group number g (its ops, inputs, arguments and stored results).
  void fill_group(const PendingWork& work, int32_t g, Group& group);

  std::vector<OpPlan> plans_;       ///< per queued op
  std::vector<uint32_t> first_op_;  ///< per group: its first op, whose shape it has
  std::vector<int32_t> order_;      ///< the groups in dependency order
  std::vector<Group> groups_;       ///< the result (the first order_.size()), memory kept
};

}  // namespace ember::fusion
