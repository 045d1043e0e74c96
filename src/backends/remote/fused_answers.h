// The remote device's answers to Backend::runs_fused_attention and runs_fused_rows: those of the
// server's device (request fuses), asked once per op and input metadata and kept, so that the
// client emits the fused op or its composite exactly as that device would locally, and a
// training step asks nothing after its first.
#pragma once

#include <span>
#include <string>
#include <unordered_map>

#include "backends/remote/remote_link.h"
#include "ir/ops.h"

namespace ember::backend::remote {

class FusedAnswers {
 public:
  /// Whether the server's device runs op (ir::Attention or a fused row op) fused on inputs: its
  /// answer, asked over link the first time (a round trip; the batch stays queued).
  bool fuses(Link& link, const ir::Op& op, std::span<const ir::TensorMeta> inputs);

 private:
  /// The answers, by the query's encoding (op, members, inputs' shapes and dtypes).
  std::unordered_map<std::string, bool> answers_;
};

}  // namespace ember::backend::remote
