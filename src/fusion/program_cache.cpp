#include "fusion/program_cache.h"

namespace ember::fusion {

std::shared_ptr<const ir::Program> ProgramCache::find_or_build(
    const std::string& key, const std::function<ir::Program()>& build) {
  {
    const std::lock_guard lock(mutex_);
    if (const auto found = programs_.find(key); found != programs_.end()) {
      ++stats_.hits;
      return found->second;
    }
  }
  // Built outside the lock: two threads may build the same program; the first one stays.
  auto program = std::make_shared<const ir::Program>(build());
  const std::lock_guard lock(mutex_);
  ++stats_.misses;
  if (programs_.size() >= kMaxPrograms) programs_.clear();
  return programs_.try_emplace(key, std::move(program)).first->second;
}

ProgramCache::Stats ProgramCache::stats() const {
  const std::lock_guard lock(mutex_);
  Stats stats = stats_;
  stats.size = programs_.size();
  return stats;
}

}  // namespace ember::fusion
