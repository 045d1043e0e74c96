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

TEST(RemoteDevice, ARepeatedStepIsDefinedOnceThenReplayed) {
  Server server(quiet_options());
  const Device remote =
      Device::remote(RemoteHost::tcp("127.0.0.1:" + std::to_string(server.port())));
  const Device local = Device::cpu();
  const TensorData start(std::vector<float>{0.5f, -1.0f, 2.0f}, Shape{3});
  TensorHandle on_remote = ops::from_data(start, remote, TensorKind::Float);
  TensorHandle on_local = ops::from_data(start, local, TensorKind::Float);
  const auto step = [](const TensorHandle& x) {
    return ops::add_scalar(ops::mul(ops::tanh(x), x), Scalar(0.25));
  };
  for (int i = 0; i < 6; ++i) {
    on_remote = step(on_remote);
    on_local = step(on_local);
    // A read each step: every step's batch is the same three ops on one outside tensor.
    EXPECT_EQ(ops::into_data(on_remote), ops::into_data(on_local)) << "step " << i;
  }
  EXPECT_EQ(server.replays(), 6u);
}

TEST(RemoteDevice, UploadsLandInTheServersPoolsAndReuseItsPages) {
  Server server(quiet_options());
  const Device remote =
      Device::remote(RemoteHost::tcp("127.0.0.1:" + std::to_string(server.port())));
  // The server serves this process's cpu device: its pools are the server's.
  const Device served = Device::cpu();
  const int64_t count = int64_t{2} << 20;  // 8 MiB of f32
  const TensorData values(std::vector<float>(static_cast<std::size_t>(count), 0.5f), Shape{count});
  const uint64_t in_use_before = served.memory_pool_usage()->bytes_in_use;
  TensorHandle on_server = ops::from_data(values, remote, TensorKind::Float);
  remote.sync();
  EXPECT_GE(served.memory_pool_usage()->bytes_in_use, in_use_before + 4 * uint64_t(count));
  // A steady loop of uploads, each replacing the last: the pools reserve nothing new after the
  // first two (the live tensor and the one being received).
  on_server = ops::from_data(values, remote, TensorKind::Float);
  remote.sync();
  const uint64_t reserved = served.memory_pool_usage()->bytes_reserved;
  for (int i = 0; i < 5; ++i) {
    on_server = ops::from_data(values, remote, TensorKind::Float);
    remote.sync();
  }
  EXPECT_EQ(served.memory_pool_usage()->bytes_reserved, reserved);
  EXPECT_EQ(ops::into_data(on_server), values);
}

}  // namespace
}  // namespace ember::test
