// The backend registry: which backends are compiled in, how to create one, and which devices
// each finds on this machine. Each backend is one line in registry.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ember/devices.h"
#include "ember/dispatch_device.h"

namespace ember::backend {

/// Creates the backend serving d; ConfigError naming EMBER_BACKEND_<NAME> when not compiled in.
std::unique_ptr<Backend> create(const DispatchDevice& d);
/// Throws ConfigError naming the option unless the backend serving d is compiled in, or naming
/// why when it is but was built without what d needs (Registration::require_buildable).
void require_compiled(const DispatchDevice& d, const char* factory);
/// Whether a backend of this type is compiled in.
bool is_compiled(DeviceType::Kind kind);
/// The devices a backend type finds on this machine (empty when not compiled in; never throws).
std::vector<DispatchDevice> enumerate(DeviceType::Kind kind);
/// The devices the server at host serves; ConfigError when the remote backend is not compiled
/// in, ExecutionError when the host cannot be reached.
std::vector<DispatchDevice> enumerate_host(const RemoteHost& host);
/// The default device: EMBER_DEVICE when set, else the first compiled backend in spec order.
DispatchDevice default_device();
/// The CPU backends' thread count (ember/threads.h); 1 when none is compiled in.
int cpu_threads();
/// Sets it (threads >= 1); nothing to do when no CPU backend is compiled in.
void set_cpu_threads(int threads);

}  // namespace ember::backend
