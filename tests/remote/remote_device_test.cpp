// The remote device end to end: a server this test starts on loopback, a client device on it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/serve.h"

namespace ember::test {
namespace {

ServeOptions quiet_options() {
  ServeOptions options;
  options.devices = {Device::cpu()};
  options.log = [](const std::string& line) { std::cerr << "server: " << line << "\n"; };
  return options;
}

TEST(RemoteDevice, RunsOpsLikeTheLocalDevice) {
  Server server(quiet_options());
  const Device remote =
      Device::remote(RemoteHost::tcp("127.0.0.1:" + std::to_string(server.port())));
  const TensorData a(std::vector<float>{1, 2, 3, 4}, Shape{2, 2});
  const TensorHandle x = ops::from_data(a, remote, TensorKind::Float);
  const TensorData back = ops::into_data(ops::add(x, x));
  EXPECT_EQ(back, TensorData(std::vector<float>{2, 4, 6, 8}, Shape{2, 2}));
}

}  // namespace
}  // namespace ember::test
