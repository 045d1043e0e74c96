#include "support/suite_device.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <variant>

#include "ember/devices.h"
#include "ember/error.h"

namespace ember::test {
namespace {

constexpr const char* kVariable = "EMBER_TEST_DEVICE";

[[noreturn]] void fail(const std::string& value, const std::string& why) {
  std::fprintf(stderr, "%s=%s: %s\n", kVariable, value.c_str(), why.c_str());
  std::fflush(stderr);
  std::exit(EXIT_FAILURE);
}

/// The devices there are to run on: Device::enumerate's local ones, or for a remote device those
/// its host serves (asked the way the name says: its credential and TLS kept).
Devices present_like(const Device& device) {
  const auto* remote = std::get_if<RemoteDevice>(&device.as_dispatch());
  if (remote == nullptr) return Device::enumerate(DeviceFilter::all());
  RemoteHost host = RemoteHost::tcp(remote->address);
  if (!remote->access.credential.empty()) host = host.with_credential(remote->access.credential);
  if (!remote->access.tls_trusted.empty()) host = host.with_tls(remote->access.tls_trusted);
  return Device::enumerate(DeviceType::remote(host));
}

Device resolve() {
  const char* set = std::getenv(kVariable);
  if (set == nullptr || *set == '\0') return Device::ndarray();
  const std::string value = set;
  try {
    const Device device = Device::from_name(value);
    std::string listed;
    for (const Device& present : present_like(device)) {
      if (present == device) {
        // Said once, so that a log shows which device the suite ran on.
        std::fprintf(stderr, "%s=%s: the suite runs on %s\n", kVariable, value.c_str(),
                     device.name().c_str());
        return device;
      }
      listed += (listed.empty() ? "" : ", ") + present.name();
    }
    fail(value, "no such device on this machine (Device::enumerate lists " +
                    (listed.empty() ? std::string("none") : listed) + ")");
  } catch (const std::exception& e) {
    fail(value, e.what());
  }
}

}  // namespace

Device suite_device() {
  static const Device device = resolve();
  return device;
}

}  // namespace ember::test
