// Executor: runs a stream's pending work on the inner backend — grouping it into programs,
// finding each program in the cache (or building it), and running it as one fused pass when the
// backend runs programs (FusionSupport::runs_programs), op by op otherwise. A group of one small op
// skips the program and runs through the backend's eager kernel (same values: a fused pass runs the
// eager kernels' loops).
#pragma once

#include <span>
#include <vector>

#include "backends/backend.h"
#include "fusion/grouping.h"
#include "fusion/pending_work.h"
#include "fusion/program_builder.h"
#include "fusion/program_cache.h"
#include "ir/program.h"

namespace ember::fusion {

class Executor {
 public:
  /// The working memory of run, kept by each stream (one thread at a time uses it) so that
  /// executing a queue again allocates little: on tiny tensors allocations are much of an op's
  /// cost.
  struct Scratch {
    Grouping grouping;
    GroupSignature signature;
    std::vector<backend::Operand> inputs;
    std::vector<backend::BufferPtr> results;
  };

  /// runs_programs: inner's FusionSupport::runs_programs.
  Executor(backend::Backend& inner, bool runs_programs)
      : inner_(inner), runs_programs_(runs_programs) {}

  /// Computes work. live[i]: whether queued op i's result is held outside the queue. Returns,
  /// per queued op, the inner buffer of its result where it was stored (every live op has one),
  /// null elsewhere; the buffers live in scratch.results, for the caller to move out and clear.
  /// Throws ExecutionError naming the op (or fused ops) that failed, with the original message.
  std::span<backend::BufferPtr> run(const PendingWork& work, const std::vector<bool>& live,
                                    Scratch& scratch);

  ProgramCache::Stats cache_stats() const { return cache_.stats(); }

 private:
  /// Runs queued op index alone through the inner backend's execute, into scratch.results.
  void run_lone(uint32_t index, const PendingWork& work, Scratch& scratch);
  backend::Outputs run_program(const ir::Program& program, std::span<const backend::Operand> inputs,
                               std::span<const Scalar> constants, const Shape& shape);

  backend::Backend& inner_;
  bool runs_programs_;
  ProgramCache cache_;
};

}  // namespace ember::fusion
