// The errors of the record layer: InvalidArgument "[op] <source>: <parts>", the source (a file,
// or "record") saying where the problem is.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "ember/error.h"

namespace ember::record::detail {

class Failure {
 public:
  /// An empty source leaves out "<source>: ".
  Failure(std::string_view op, std::string_view source)
      : prefix_("[" + std::string(op) + "] " +
                (source.empty() ? std::string() : std::string(source) + ": ")) {}

  /// Throws the error, its message the prefix followed by every part streamed in turn.
  template <typename... Parts>
  [[noreturn]] void operator()(const Parts&... parts) const {
    std::ostringstream message;
    message << prefix_;
    (message << ... << parts);
    throw InvalidArgument(message.str());
  }

 private:
  std::string prefix_;
};

}  // namespace ember::record::detail
