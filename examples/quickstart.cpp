// Quickstart: choose a device, make tensors, compute, read results back.
// The same code runs on every backend: only the Device changes.
#include <iostream>

#include <ember/ember.h>

int main() {
  using namespace ember;
  Device device;  // the default device; EMBER_DEVICE=<name> picks another
  std::cout << "device: " << device << " (defaults: " << device.settings() << ")\n";

  device.seed(42);
  auto weights = Tensor<2>::random({3, 4}, Distribution::normal(0.0, 1.0), device);
  auto inputs = Tensor<2>::from_data(
      TensorData(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 4}), device);

  // A linear layer by hand: inputs [2, 4] x weights^T [4, 3] → [2, 3].
  auto outputs = inputs.matmul(weights.transpose());
  auto [probabilities, duration] = device.profile([&] {
    auto shifted = outputs - outputs.max_dim(1);
    auto e = shifted.exp();
    return e / e.sum_dim(1);
  });

  std::cout << "outputs: " << outputs << "\n";
  std::cout << "softmax: " << probabilities << "\n";
  std::cout << "argmax:  " << probabilities.argmax(1) << "\n";
  if (auto ticks = duration.resolve()) {
    std::cout << "softmax took " << ticks->duration().count() << " ns on " << device << "\n";
  }
}
