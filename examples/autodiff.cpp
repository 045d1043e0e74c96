// Autodiff: gradients are a property of the device. Tensors created on device.autodiff() that
// require grad are recorded; backward() returns their gradients.
#include <iostream>

#include <ember/ember.h>

int main() {
  using namespace ember;
  Device device = Device().autodiff();
  device.seed(7);

  auto w = Tensor<2>::random({3, 4}, Distribution::normal(0, 1), device).require_grad();
  auto x = Tensor<2>::ones({2, 3}, device);
  auto loss = activation::relu(x.matmul(w)).sum();
  Gradients grads = loss.backward();
  std::optional<Tensor<2>> dw = w.grad(grads);

  std::cout << "loss: " << loss.into_scalar<float>() << "\n";
  std::cout << "d loss / d w: " << *dw << "\n";

  // The same model with Balanced checkpointing keeps fewer bytes for backward.
  Device checkpointed = device.gradient_checkpointing();
  auto w2 = Tensor<2>::from_data(w.into_data(), checkpointed).require_grad();
  auto h = x.to_device(checkpointed).matmul(w2);
  auto deep = (h.tanh() * h + h).exp().sum();
  std::cout << "retained for backward with Balanced: " << autodiff::retained_bytes(checkpointed)
            << " bytes\n";
  deep.backward();
}
