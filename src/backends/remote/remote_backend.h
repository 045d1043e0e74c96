// The remote backend (docs/backends/remote.md): ops go to a device that `ember serve` hosts,
// batched: execute queues the op and hands back a buffer that names its result by a session id;
// the batch travels when it is full, or on flush, sync, a read or a write.
#pragma once

#include <memory>

#include "backends/backend.h"
#include "ember/devices.h"
#include "ember/dispatch_device.h"

namespace ember::backend::remote {

/// A backend for device, connected and with its session open. ExecutionError when the server
/// cannot be reached or hosts no such device; ConfigError when it refuses the client.
std::unique_ptr<Backend> make_remote_backend(const RemoteDevice& device);

/// The devices host serves, as remote devices of this client.
std::vector<DispatchDevice> hosted_devices(const RemoteHost& host);

}  // namespace ember::backend::remote
