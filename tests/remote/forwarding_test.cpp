// What the remote device forwards to the server's device besides ops: settings and configure (read
// back from the served device itself, which lives in this process), and profile windows timed on
// the server.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "remote/remote_test_util.h"

namespace ember::test {
namespace {

using Clock = std::chrono::steady_clock;

TEST(RemoteForwarding, SettingsAndConfigureAreTheServersDevices) {
  // ndarray: no other test of this binary makes a tensor on it, which would lock its settings.
  ServeOptions options = test_server_options();
  options.devices = {Device::ndarray()};
  Server server(std::move(options));
  const Device served = Device::ndarray();
  Device remote = Device::remote(RemoteHost::tcp(loopback(server)));
  EXPECT_EQ(remote.settings(), served.settings());

  remote.configure(DeviceConfig(FloatDType::F64, IntDType::I32)
                       .with_f32_matmul_precision(MatmulPrecision::High)
                       .with_graph_replay(false));
  const DeviceSettings configured = served.settings();
  EXPECT_EQ(configured.float_dtype, FloatDType::F64);
  EXPECT_EQ(configured.int_dtype, IntDType::I32);
  EXPECT_EQ(configured.f32_matmul_precision, MatmulPrecision::High);
  EXPECT_FALSE(configured.graph_replay);
  EXPECT_EQ(remote.settings(), configured);
  EXPECT_EQ(ops::into_data(ops::zeros(Shape{2}, remote, TensorKind::Float)).dtype(), DType::F64);
  // The served device is configured once: another client (another name for the same server is
  // another device to the client) is refused by the server, and its settings stay as they were.
  Device other = Device::remote(RemoteHost::tcp("localhost:" + std::to_string(server.port())));
  try {
    other.configure(DeviceConfig(FloatDType::F16));
    ADD_FAILURE() << "the server's device was configured twice";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.kind(), DeviceErrorKind::AlreadyInitialized);
    EXPECT_NE(std::string(e.what()).find("already initialized"), std::string::npos) << e.what();
  }
  EXPECT_EQ(served.settings(), configured);
  EXPECT_EQ(other.settings().float_dtype, FloatDType::F64);
}

/// Eight chained products of a 384 x 384 matrix on device, the last one returned.
TensorHandle products(const Device& device) {
  const TensorData values(std::vector<float>(384 * 384, 1.0f / 384), Shape{384, 384});
  const TensorHandle a = ops::from_data(values, device, TensorKind::Float);
  TensorHandle x = a;
  for (int i = 0; i < 8; ++i)
    x = ops::matmul(x, a);
  return x;
}

TEST(RemoteForwarding, AProfileWindowIsTimedOnTheServer) {
  Server server(test_server_options());
  const Device remote = Device::remote(RemoteHost::tcp(loopback(server)));
  // What the products take on the device the server serves, measured here without the server.
  const Device local = Device::cpu();
  auto local_time = Clock::duration::max();
  for (int round = 0; round < 3; ++round) {
    const auto start = Clock::now();
    (void)ops::into_data(products(local));
    local_time = std::min(local_time, Clock::now() - start);
  }
  (void)ops::into_data(products(remote));  // warms the server's pools and thread pool up

  const auto start = Clock::now();
  auto [product, duration] = remote.profile([&] { return products(remote); });
  const auto profile_returned = Clock::now() - start;
  const std::optional<ProfileTicks> ticks = duration.resolve();
  const auto resolved = Clock::now() - start;
  ASSERT_TRUE(ticks.has_value());
  // The window's end is a point after the products on the server's clock: the window holds their
  // time (a tenth of it at least: ctest runs other suites beside this one, and the local
  // measurement can be slowed as much as the remote one), within what the client saw from opening
  // the window to the answer.
  EXPECT_GE(ticks->duration(), local_time / 10);
  EXPECT_LE(ticks->duration(), resolved);
  // Nothing waited for the server's work while the window was open (a window timed between two
  // syncs on the client would have).
  EXPECT_LT(profile_returned, ticks->duration());
  EXPECT_EQ(ops::into_data(product), ops::into_data(products(local)));

  // A window that nothing ran in reads as no time.
  EXPECT_FALSE(remote.profile([] {}).resolve().has_value());
}

}  // namespace
}  // namespace ember::test
