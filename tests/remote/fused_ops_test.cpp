// The fused row ops on a remote device: the client asks the server whether its device runs
// ir::LayerNorm and ir::CrossEntropy (and their gradients) fused, so a remote cpu device emits the
// same ops as the local cpu device and computes the same bits, the oracle; a server whose device
// fuses nothing (ndarray) gets the composites, as the local ndarray device does.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/autodiff.h"
#include "ember/ember.h"
#include "ember/serve.h"
#include "remote/remote_test_util.h"
#include "tensor/fused_path.h"

namespace ember::test {
namespace {

/// Deterministic values in [-2, 2].
TensorData wavy(const Shape& shape, double seed) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(2.0 * std::sin(seed + 1.37 * static_cast<double>(i) + 0.01 * i * i));
  return TensorData(v, shape);
}

/// cross_entropy(layer_norm(x, w, b), targets) on device: the loss, then the gradients of x, w
/// and b, as host data.
std::vector<TensorData> loss_and_gradients(const Device& device) {
  constexpr int64_t kRows = 8;
  constexpr int64_t kClasses = 37;  // no multiple of a vector width
  const Device d = device.autodiff();
  const TensorHandle x =
      ops::require_grad(ops::from_data(wavy({kRows, kClasses}, 0.3), d, TensorKind::Float));
  const TensorHandle w =
      ops::require_grad(ops::from_data(wavy({kClasses}, 1.1), d, TensorKind::Float));
  const TensorHandle b =
      ops::require_grad(ops::from_data(wavy({kClasses}, 2.9), d, TensorKind::Float));
  std::vector<int64_t> classes;
  for (int64_t i = 0; i < kRows; ++i)
    classes.push_back((i * 7) % kClasses);
  const TensorHandle targets =
      ops::from_data(TensorData(classes, Shape{kRows}), d, TensorKind::Int);
  const TensorHandle normed = ops::layer_norm(x, {kClasses}, w, b, 1e-5);
  const TensorHandle loss =
      ops::cross_entropy(normed, targets, std::nullopt, module::Reduction::Mean, 0.1);
  const Gradients grads = ops::backward(loss);
  return {ops::into_data(loss), ops::into_data(*grads.get(x)), ops::into_data(*grads.get(w)),
          ops::into_data(*grads.get(b))};
}

/// A remote device on server's first device.
Device remote_on(const Server& server) {
  return Device::remote(RemoteHost::tcp(loopback(server)));
}

TEST(RemoteFusedOps, LayerNormAndCrossEntropyAreTheLocalCpuDevicesBitForBit) {
  Server server(test_server_options());
  const std::vector<TensorData> local = loss_and_gradients(Device::cpu());
  const std::vector<TensorData> remote = loss_and_gradients(remote_on(server));
  ASSERT_EQ(remote.size(), local.size());
  for (std::size_t i = 0; i < local.size(); ++i)
    EXPECT_EQ(remote[i], local[i]) << "result " << i << " (loss, then x's, w's, b's gradient)";
  // What makes the comparison bite: the composites round otherwise on these values.
  const tensor::FusedPathScope composite(tensor::FusedPath::Composite);
  EXPECT_NE(loss_and_gradients(Device::cpu()), local);
}

TEST(RemoteFusedOps, AServerDeviceThatFusesNothingRunsTheComposites) {
  ServeOptions options = test_server_options();
  options.devices = {Device::ndarray()};
  Server server(std::move(options));
  const std::vector<TensorData> local = loss_and_gradients(Device::ndarray());
  const std::vector<TensorData> remote = loss_and_gradients(remote_on(server));
  ASSERT_EQ(remote.size(), local.size());
  for (std::size_t i = 0; i < local.size(); ++i)
    EXPECT_EQ(remote[i], local[i]) << "result " << i << " (loss, then x's, w's, b's gradient)";
}

}  // namespace
}  // namespace ember::test
