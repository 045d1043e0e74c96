// ScopedEnv: sets (or unsets) one environment variable for a scope, then restores its previous
// value, so a test of EMBER_DEVICE or EMBER_FUSION leaves the process as it found it.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace ember::test {

class ScopedEnv {
 public:
  /// Sets name to value for the scope (unsets it for nullopt).
  ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) previous_ = old;
    set(value);
  }
  ~ScopedEnv() { set(previous_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const std::optional<std::string>& value) const {
    if (value) {
      setenv(name_.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  std::string name_;
  std::optional<std::string> previous_;
};

}  // namespace ember::test
