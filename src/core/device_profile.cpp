// Profile windows. On a backend with a device clock (Backend::record_timestamp: cuda's events)
// a window is two timestamps in the device's queue, with no sync: the start follows the work
// owed from before (flushed first), the end the closure's work, and the duration resolves when
// asked for, so nested windows cost the device nothing. Elsewhere a window is measured in
// wall-clock time between two syncs: the sync at the start makes work owed from before fall in,
// the sync at the end waits for the closure's work; an inner window's syncs are then charged to
// the outer one, as the spec allows.
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>

#include "core/device_context.h"
#include "ember/device.h"

namespace ember {

namespace {

ProfileDuration resolved(std::optional<ProfileTicks> ticks) {
  std::promise<std::optional<ProfileTicks>> promise;
  promise.set_value(ticks);
  return ProfileDuration(promise.get_future().share());
}

/// The device time between two timestamps, resolved on the first resolve().
ProfileDuration between(std::shared_ptr<backend::DeviceTimestamp> start,
                        std::shared_ptr<backend::DeviceTimestamp> end) {
  return ProfileDuration(std::async(std::launch::deferred, [start, end] {
                           const double seconds = end->seconds_since(*start);
                           return std::optional<ProfileTicks>(ProfileTicks(
                               std::chrono::nanoseconds(static_cast<int64_t>(seconds * 1e9))));
                         }).share());
}

}  // namespace

Device::ProfileWindow Device::profile_begin() const {
  const auto context = detail::DeviceContext::of(dispatch_);
  flush();
  if (std::shared_ptr<backend::DeviceTimestamp> start = context->record_timestamp())
    return {std::chrono::steady_clock::now(), context->work_count(), std::move(start)};
  sync();
  return {std::chrono::steady_clock::now(), context->work_count(), nullptr};
}

ProfileDuration Device::profile_end(ProfileWindow window, ProfileOptions options) const {
  if (options.flush_at_end) flush();
  const auto context = detail::DeviceContext::of(dispatch_);
  if (window.device_start) {
    if (context->work_count() == window.work_count) return resolved(std::nullopt);
    return between(std::static_pointer_cast<backend::DeviceTimestamp>(window.device_start),
                   context->record_timestamp());
  }
  sync();
  const auto end = std::chrono::steady_clock::now();
  // A window that nothing ran in reads as no time.
  if (detail::DeviceContext::of(dispatch_)->work_count() == window.work_count) {
    return resolved(std::nullopt);
  }
  return resolved(ProfileTicks(end - window.start));
}

}  // namespace ember
