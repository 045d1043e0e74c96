// Profile windows. No backend exposes a device clock yet (Backend has no timestamp hooks), so
// every window is measured in wall-clock time between two syncs: the sync at the start makes
// work owed from before fall in, the sync at the end waits for the closure's work. An inner
// window's syncs are therefore charged to the outer one, as the spec allows.
#include <chrono>
#include <future>
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

}  // namespace

Device::ProfileWindow Device::profile_begin() const {
  sync();
  const auto context = detail::DeviceContext::of(dispatch_);
  return {std::chrono::steady_clock::now(), context->work_count()};
}

ProfileDuration Device::profile_end(ProfileWindow window, ProfileOptions options) const {
  if (options.flush_at_end) flush();
  sync();
  const auto end = std::chrono::steady_clock::now();
  // A window that nothing ran in reads as no time.
  if (detail::DeviceContext::of(dispatch_)->work_count() == window.work_count) {
    return resolved(std::nullopt);
  }
  return resolved(ProfileTicks(end - window.start));
}

}  // namespace ember
