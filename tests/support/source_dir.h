// Where the tests find the repository's files (golden data, fixtures, scripts): the environment's
// EMBER_SOURCE_DIR when set (a test binary carried to another machine, as scripts/gpu-suite
// does), else the source tree the binary was built from.
#pragma once

#include <cstdlib>
#include <string>

namespace ember::test {

inline std::string source_dir() {
  const char* dir = std::getenv("EMBER_SOURCE_DIR");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string(EMBER_SOURCE_DIR);
}

}  // namespace ember::test
