// ProgramCache: fused programs by signature (program_builder.h), so a loop that queues the same
// op graph on fresh data builds each of its programs once. Shared by every stream of a
// FusionBackend (thread-safe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ir/program.h"

namespace ember::fusion {

class ProgramCache {
 public:
  /// Programs kept at most. Note: a queue cut by its size bound at a different place in each
  /// iteration of a loop makes new signatures for a while; past this many the cache starts
  /// over instead of growing without bound.
  static constexpr std::size_t kMaxPrograms = 1024;

  struct Stats {
    uint64_t hits = 0;
    uint64_t misses = 0;  ///< programs built
    std::size_t size = 0;
  };

  /// The program cached under key, or build()'s result, cached now.
  std::shared_ptr<const ir::Program> find_or_build(const std::string& key,
                                                   const std::function<ir::Program()>& build);
  Stats stats() const;

 private:
  mutable std::mutex mutex_;  // guards everything below
  std::unordered_map<std::string, std::shared_ptr<const ir::Program>> programs_;
  Stats stats_;
};

}  // namespace ember::fusion
