// Which commands of a batch need a barrier before them. A command has to wait for an earlier one
// only where the slices they touch overlap and one of the two writes (a read after a write, a
// write after a read, two writes); independent commands (the optimizer's updates of different
// parameters, the projections that read the same input) then run side by side on the device,
// where a barrier after every command drained it between any two of them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "backends/vulkan/device_pages.h"

namespace ember::vulkan {

/// A slice a command reads, or writes (a write may read it too).
struct Access {
  BufferRange range;
  bool writes = true;
};

/// The slices the commands since a batch's last barrier touched.
class HazardTracker {
 public:
  /// Whether a command making accesses has to wait for one of those commands.
  bool must_wait(std::span<const Access> accesses) const;
  /// Counts accesses among those of the commands since the last barrier.
  void add(std::span<const Access> accesses);
  /// A barrier was recorded: every earlier command is ordered before what comes next.
  void clear() { since_barrier_.clear(); }
  bool empty() const { return since_barrier_.empty(); }

 private:
  std::vector<Access> since_barrier_;
};

/// Which of a GLSL kernel's tensors (bindings 1 to tensors, after its parameter block) it may
/// write: every one not declared readonly (one declared nowhere counts as written).
std::vector<bool> written_tensors(std::string_view glsl, uint32_t tensors);

}  // namespace ember::vulkan
