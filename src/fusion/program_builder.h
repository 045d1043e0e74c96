// From a group of queued ops to a program: the signature that finds the program in the cache
// (the relative shape of the op graph) and, on a miss, the program itself.
#pragma once

#include <string>
#include <vector>

#include "fusion/grouping.h"
#include "fusion/pending_work.h"
#include "ir/program.h"

namespace ember::fusion {

struct GroupSignature {
  /// Equal for two groups exactly when one program computes both: the ops and their parameters,
  /// the dtypes, the argument graph (values numbered within the group), the output rank, each
  /// input's rank and broadcast flags, and which results are stored. Concrete sizes and scalar
  /// values are left out: they come with each execution.
  std::string key;
  /// The scalar of each instruction that has one, in instruction order.
  std::vector<Scalar> constants;
};

/// Sets signature to group's, reusing its memory (a stream computes one per group it executes).
void signature_of(const Group& group, const PendingWork& work, GroupSignature& signature);
/// The program of group; its instructions' constants index signature_of(group).constants.
ir::Program build_program(const Group& group, const PendingWork& work);

}  // namespace ember::fusion
