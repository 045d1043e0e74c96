// Errors thrown by ember. Every error is an ember::Error (a std::runtime_error); nothing in
// ember aborts the process on bad input. Messages name the op and the offending values:
// "[matmul] lhs [2, 3] and rhs [4, 5]: inner dims 3 != 4".
#pragma once

#include <stdexcept>
#include <string>

namespace ember {

/// Base of every exception ember throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The device failed to run work (out of memory included), or refused to open a profile window.
class ExecutionError : public Error {
 public:
  using Error::Error;
};

/// A requested backend is not compiled in, or no backend is enabled at all. The message names
/// the CMake option (EMBER_BACKEND_<NAME>) to turn on.
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// Bad shapes, ranks, dims, dtypes, indices or arguments: everything the spec says "panics".
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// Why Device::configure refused a configuration.
enum class DeviceErrorKind {
  UnsupportedDType,    ///< The device cannot compute in a requested dtype.
  AlreadyInitialized,  ///< Settings were already set by configure or locked by a tensor.
};

/// Raised by Device::configure.
class DeviceError : public Error {
 public:
  DeviceError(DeviceErrorKind kind, const std::string& message) : Error(message), kind_(kind) {}
  DeviceErrorKind kind() const noexcept { return kind_; }

 private:
  DeviceErrorKind kind_;
};

}  // namespace ember
