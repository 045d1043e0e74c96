// Profiling windows: Device::profile measures the device time a closure's work took.
#pragma once

#include <chrono>
#include <future>
#include <optional>

namespace ember {

/// The time a profile window measured.
class ProfileTicks {
 public:
  explicit ProfileTicks(std::chrono::nanoseconds d) : duration_(d) {}
  std::chrono::nanoseconds duration() const { return duration_; }

 private:
  std::chrono::nanoseconds duration_;
};

/// A measurement the device answers once it has run both ends of the window. Copyable; resolve
/// any number of times.
class ProfileDuration {
 public:
  explicit ProfileDuration(std::shared_future<std::optional<ProfileTicks>> f)
      : future_(std::move(f)) {}
  /// Blocks until the window's end has run; empty when no work ran in the window.
  std::optional<ProfileTicks> resolve() const { return future_.get(); }

 private:
  std::shared_future<std::optional<ProfileTicks>> future_;
};

/// Options of Device::profile_with.
struct ProfileOptions {
  bool flush_at_end = false;
  /// Flush the device's queue when the closure returns, so lazily queued work falls inside.
  ProfileOptions flush() const {
    ProfileOptions o = *this;
    o.flush_at_end = true;
    return o;
  }
};

}  // namespace ember
