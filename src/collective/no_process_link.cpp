// The build without Gloo (scripts/install-deps installs libgloo-dev): one process only.
#include "collective/process_link.h"
#include "ember/error.h"

namespace ember::collective {

std::unique_ptr<ProcessLink> connect_processes(const ProcessInfo& process,
                                               std::chrono::milliseconds) {
  throw ConfigError("[collective] WORLD_SIZE is " + std::to_string(process.world_size) +
                    ", but this ember was built without Gloo, which joins processes: install "
                    "libgloo-dev (scripts/install-deps) and build again");
}

}  // namespace ember::collective
