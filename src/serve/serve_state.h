// What every connection of a Server shares: the devices, the credential, the limits, the log
// and the counters the Server reports.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/serve.h"
#include "wire/tls.h"

namespace ember::serve {

struct Shared {
  explicit Shared(ServeOptions given) : options(std::move(given)) {}

  ServeOptions options;
  /// The server's TLS context; null without TLS.
  std::shared_ptr<wire::TlsContext> tls;
  std::atomic<std::size_t> sessions{0};
  std::atomic<std::size_t> bytes{0};
  std::atomic<std::size_t> replays{0};

  void log(const std::string& line) const;
};

}  // namespace ember::serve
