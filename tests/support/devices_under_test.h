// The devices the cross-device suites (conformance, gradcheck, random streams) run on: every local
// device Device::enumerate finds, and, where the remote backend is compiled in, a remote cpu
// device served on loopback by a server this process starts (once, on first use).
#pragma once

#include <optional>

#include "ember/device.h"
#include "ember/devices.h"

namespace ember::test {

/// The remote cpu device of the test server; nullopt where the remote backend is not compiled in.
std::optional<Device> remote_test_device();
/// Every local device, then remote_test_device().
Devices devices_under_test();

}  // namespace ember::test
