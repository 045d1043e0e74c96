#include "fusion/grouping.h"

#include <algorithm>
#include <cstddef>
#include <iterator>

#include "ember/error.h"

namespace ember::fusion {
namespace {

constexpr int32_t kNoGroup = -1;

/// needed[i]: op i is live, or an argument of a needed op.
std::vector<bool> needed_ops(const PendingWork& work, const std::vector<bool>& live) {
  std::vector<bool> needed = live;
  for (std::size_t i = work.ops.size(); i-- > 0;) {
    if (!needed[i]) continue;
    for (const ValueRef arg : work.ops[i].args) {
      if (arg.kind == ValueRef::Kind::Queued) needed[arg.index] = true;
    }
  }
  return needed;
}

/// What the ops of each output shape share: the group numbering of the needed ops.
struct Partition {
  std::vector<int32_t> group_of;  ///< per queued op; kNoGroup when not needed
  std::vector<Shape> shapes;      ///< per group
};

Partition partition_by_shape(const PendingWork& work, const std::vector<bool>& needed) {
  Partition partition;
  partition.group_of.assign(work.ops.size(), kNoGroup);
  for (std::size_t i = 0; i < work.ops.size(); ++i) {
    if (!needed[i]) continue;
    const Shape& shape = work.ops[i].output.shape;
    auto found = std::ranges::find(partition.shapes, shape);
    if (found == partition.shapes.end()) {
      partition.shapes.push_back(shape);
      found = std::prev(partition.shapes.end());
    }
    partition.group_of[i] = static_cast<int32_t>(found - partition.shapes.begin());
  }
  return partition;
}

/// Groups ordered so that each comes after the groups whose values it reads.
std::vector<int32_t> dependency_order(const PendingWork& work, const Partition& partition) {
  const std::size_t groups = partition.shapes.size();
  std::vector<std::vector<int32_t>> reads(groups);
  for (std::size_t i = 0; i < work.ops.size(); ++i) {
    const int32_t group = partition.group_of[i];
    if (group == kNoGroup) continue;
    for (const ValueRef arg : work.ops[i].args) {
      if (arg.kind != ValueRef::Kind::Queued) continue;
      const int32_t from = partition.group_of[arg.index];
      if (from != group) reads[static_cast<std::size_t>(group)].push_back(from);
    }
  }
  std::vector<int32_t> order;
  std::vector<bool> placed(groups, false);
  while (order.size() < groups) {
    const std::size_t before = order.size();
    for (std::size_t g = 0; g < groups; ++g) {
      const bool ready = std::ranges::all_of(
          reads[g], [&](int32_t from) { return placed[static_cast<std::size_t>(from)]; });
      if (!placed[g] && ready) {
        placed[g] = true;
        order.push_back(static_cast<int32_t>(g));
      }
    }
    // Broadcasting only grows shapes, so a cycle would be a bug here, not bad input.
    if (order.size() == before)
      throw ExecutionError("[fusion] fused programs depend on each other");
  }
  return order;
}

/// stored[i]: op i is live or read by an op of another group.
std::vector<bool> stored_ops(const PendingWork& work, const std::vector<bool>& live,
                             const Partition& partition) {
  std::vector<bool> stored = live;
  for (std::size_t i = 0; i < work.ops.size(); ++i) {
    if (partition.group_of[i] == kNoGroup) continue;
    for (const ValueRef arg : work.ops[i].args) {
      if (arg.kind == ValueRef::Kind::Queued &&
          partition.group_of[arg.index] != partition.group_of[i]) {
        stored[arg.index] = true;
      }
    }
  }
  return stored;
}

/// The program input that reads value, added on first use.
Ref input_ref(Group& group, ValueRef value) {
  auto found = std::ranges::find(group.inputs, value);
  if (found == group.inputs.end()) {
    group.inputs.push_back(value);
    found = std::prev(group.inputs.end());
  }
  return {Ref::Kind::Input, static_cast<uint32_t>(found - group.inputs.begin())};
}

}  // namespace

std::vector<Group> split_into_groups(const PendingWork& work, const std::vector<bool>& live) {
  const Partition partition = partition_by_shape(work, needed_ops(work, live));
  const std::vector<bool> stored = stored_ops(work, live, partition);
  // Each needed op belongs to one group: its instruction index there.
  std::vector<uint32_t> instruction_of(work.ops.size(), 0);
  std::vector<Group> groups;
  for (const int32_t g : dependency_order(work, partition)) {
    Group group;
    group.shape = partition.shapes[static_cast<std::size_t>(g)];
    for (std::size_t i = 0; i < work.ops.size(); ++i) {
      if (partition.group_of[i] != g) continue;
      const auto instruction = static_cast<uint32_t>(group.ops.size());
      instruction_of[i] = instruction;
      std::vector<Ref> args;
      for (const ValueRef arg : work.ops[i].args) {
        const bool local = arg.kind == ValueRef::Kind::Queued && partition.group_of[arg.index] == g;
        args.push_back(local ? Ref{Ref::Kind::Instruction, instruction_of[arg.index]}
                             : input_ref(group, arg));
      }
      group.ops.push_back(static_cast<uint32_t>(i));
      group.args.push_back(std::move(args));
      if (stored[i]) group.outputs.push_back(instruction);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace ember::fusion
