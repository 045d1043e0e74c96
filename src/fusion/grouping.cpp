#include "fusion/grouping.h"

#include <algorithm>
#include <cstddef>
#include <iterator>

#include "ember/error.h"

namespace ember::fusion {
namespace {

constexpr int32_t kNoGroup = Grouping::OpPlan::kNoGroup;

/// The program input that reads value, added on first use.
ir::ProgramRef input_ref(Group& group, ValueRef value) {
  auto found = std::ranges::find(group.inputs, value);
  if (found == group.inputs.end()) {
    group.inputs.push_back(value);
    found = std::prev(group.inputs.end());
  }
  return {ir::ProgramRef::Kind::Input, static_cast<uint32_t>(found - group.inputs.begin())};
}

}  // namespace

std::span<const Group> Grouping::split(const PendingWork& work, const std::vector<bool>& live) {
  plan_ops(work, live);
  order_groups(work);
  if (groups_.size() < order_.size()) groups_.resize(order_.size());
  for (std::size_t k = 0; k < order_.size(); ++k)
    fill_group(work, order_[k], groups_[k]);
  return {groups_.data(), order_.size()};
}

void Grouping::plan_ops(const PendingWork& work, const std::vector<bool>& live) {
  plans_.assign(work.ops.size(), OpPlan{});
  first_op_.clear();
  mark_needed(work, live);
  group_by_shape(work);
  mark_stored(work, live);
}

void Grouping::mark_needed(const PendingWork& work, const std::vector<bool>& live) {
  for (std::size_t i = work.ops.size(); i-- > 0;) {
    plans_[i].needed = plans_[i].needed || live[i];
    if (!plans_[i].needed) continue;
    for (const ValueRef arg : work.ops[i].args) {
      if (arg.kind == ValueRef::Kind::Queued) plans_[arg.index].needed = true;
    }
  }
}

void Grouping::group_by_shape(const PendingWork& work) {
  for (std::size_t i = 0; i < work.ops.size(); ++i) {
    if (!plans_[i].needed) continue;
    const Shape& shape = work.ops[i].output.shape;
    auto found = std::ranges::find_if(
        first_op_, [&](uint32_t first) { return work.ops[first].output.shape == shape; });
    if (found == first_op_.end()) {
      first_op_.push_back(static_cast<uint32_t>(i));
      found = std::prev(first_op_.end());
    }
    plans_[i].group = static_cast<int32_t>(found - first_op_.begin());
  }
}

void Grouping::mark_stored(const PendingWork& work, const std::vector<bool>& live) {
  for (std::size_t i = 0; i < work.ops.size(); ++i) {
    // Later ops may already have marked this one (they read it from another group).
    plans_[i].stored = plans_[i].stored || live[i];
    if (plans_[i].group == kNoGroup) continue;
    for (const ValueRef arg : work.ops[i].args) {
      if (arg.kind == ValueRef::Kind::Queued && plans_[arg.index].group != plans_[i].group)
        plans_[arg.index].stored = true;
    }
  }
}

void Grouping::order_groups(const PendingWork& work) {
  const std::size_t groups = first_op_.size();
  order_.clear();
  if (groups <= 1) {  // the usual case: nothing to order
    order_.resize(groups, 0);
    return;
  }
  std::vector<std::vector<int32_t>> reads(groups);
  for (std::size_t i = 0; i < work.ops.size(); ++i) {
    const int32_t group = plans_[i].group;
    if (group == kNoGroup) continue;
    for (const ValueRef arg : work.ops[i].args) {
      if (arg.kind != ValueRef::Kind::Queued) continue;
      const int32_t from = plans_[arg.index].group;
      if (from != group) reads[static_cast<std::size_t>(group)].push_back(from);
    }
  }
  std::vector<bool> placed(groups, false);
  while (order_.size() < groups) {
    const std::size_t before = order_.size();
    for (std::size_t g = 0; g < groups; ++g) {
      const bool ready = std::ranges::all_of(
          reads[g], [&](int32_t from) { return placed[static_cast<std::size_t>(from)]; });
      if (!placed[g] && ready) {
        placed[g] = true;
        order_.push_back(static_cast<int32_t>(g));
      }
    }
    // Broadcasting only grows shapes, so a cycle would be a bug here, not bad input.
    if (order_.size() == before)
      throw ExecutionError("[fusion] fused programs depend on each other");
  }
}

void Grouping::fill_group(const PendingWork& work, int32_t g, Group& group) {
  group.shape = work.ops[first_op_[static_cast<std::size_t>(g)]].output.shape;
  group.inputs.clear();
  group.ops.clear();
  group.args.clear();
  group.outputs.clear();
  for (std::size_t i = 0; i < work.ops.size(); ++i) {
    OpPlan& plan = plans_[i];
    if (plan.group != g) continue;
    plan.instruction = static_cast<uint32_t>(group.ops.size());
    ArgList<ir::ProgramRef> args;
    for (const ValueRef arg : work.ops[i].args) {
      const bool local = arg.kind == ValueRef::Kind::Queued && plans_[arg.index].group == g;
      args.push_back(
          local ? ir::ProgramRef{ir::ProgramRef::Kind::Instruction, plans_[arg.index].instruction}
                : input_ref(group, arg));
    }
    group.ops.push_back(static_cast<uint32_t>(i));
    group.args.push_back(args);
    if (plan.stored) group.outputs.push_back(plan.instruction);
  }
}

}  // namespace ember::fusion
