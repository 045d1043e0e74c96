// The LibTorch C++ side of the tiny-op rows: an op called directly through LibTorch's API on
// bench/support/pattern.h's values. tiny_ops_libtorch (the peer run_ops.py runs) and
// libtorch_overhead_bench (ember on libtorch against LibTorch itself) time the same steps. No
// LibTorch header here: the benchmarks that include this compile without them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::bench {

/// One op on inputs made once; each run keeps its output until the next (so the previous one is
/// freed inside the timed loop, as an ember step's is).
class TinyOpStep {
 public:
  virtual ~TinyOpStep() = default;
  virtual void run() = 0;
  /// sum(|last output|), the rows' checksum counter.
  virtual double checksum() const = 0;
};

/// add, mul or exp on inputs of shape; out_variant writes into a preallocated output (add_out).
/// InvalidArgument "[tiny_ops_libtorch] ..." for another op.
std::unique_ptr<TinyOpStep> make_tiny_op_step(const std::string& op,
                                              const std::vector<int64_t>& shape, bool out_variant);

}  // namespace ember::bench
