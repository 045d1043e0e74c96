#include "support/devices_under_test.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#ifdef EMBER_TEST_REMOTE
#include "ember/serve.h"
#endif

namespace ember::test {

#ifdef EMBER_TEST_REMOTE
namespace {

Server*& test_server() {
  static Server* server = nullptr;
  return server;
}

void stop_test_server() {
  test_server()->stop();
}

}  // namespace
#endif

std::optional<Device> remote_test_device() {
#ifdef EMBER_TEST_REMOTE
  // Lives to the end of the process: the suites' devices outlive every test. Stopped at exit, so
  // that its connection threads end and free what they keep (LeakSanitizer cannot see a live
  // thread's thread-local free lists); the device contexts and the thread pool it runs on are
  // never destroyed, so they are still there then.
  static Server* const server = [] {
    ServeOptions options;
    options.devices = {Device::cpu()};
    options.log = [](const std::string&) {};
    test_server() = new Server(std::move(options));  // NOLINT: never destroyed, on purpose
    std::atexit(stop_test_server);
    return test_server();
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
