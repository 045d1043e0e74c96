// What every connection of a Server shares: the devices, the credential, the limits, the log
// and the counters the Server reports.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "ember/serve.h"

namespace ember::serve {

struct Shared {
  ServeOptions options;
  std::atomic<std::size_t> sessions{0};
  std::atomic<std::size_t> bytes{0};

  void log(const std::string& line) const;
};

}  // namespace ember::serve
