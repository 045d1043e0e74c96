#include "support/devices_under_test.h"

#include <memory>
#include <string>
#include <vector>

#ifdef EMBER_TEST_REMOTE
#include "ember/serve.h"
#endif

namespace ember::test {

std::optional<Device> remote_test_device() {
#ifdef EMBER_TEST_REMOTE
  // Lives to the end of the process: the suites' devices outlive every test.
  static Server* const server = [] {
    ServeOptions options;
    options.devices = {Device::cpu()};
    options.log = [](const std::string&) {};
    return new Server(std::move(options));  // NOLINT: never destroyed, on purpose
  }();
  return Device::remote(RemoteHost::tcp("127.0.0.1:" + std::to_string(server->port())));
#else
  return std::nullopt;
#endif
}

Devices devices_under_test() {
  const Devices local = Device::enumerate(DeviceFilter::all());
  std::vector<Device> devices(local.begin(), local.end());
  if (std::optional<Device> remote = remote_test_device()) devices.push_back(*remote);
  return Devices(std::move(devices));
}

}  // namespace ember::test
