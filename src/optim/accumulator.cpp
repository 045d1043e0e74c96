#include "ember/optim/accumulator.h"

#include <utility>

#include "checks.h"
#include "ember/tensor_ops.h"

namespace ember::optim {

void GradientsAccumulator::add(const GradientsParams& grads) {
  // Every check before the first sum, so that a bad gradient leaves the sums as they were.
  for (const auto& [name, grad] : grads) {
    const std::optional<TensorHandle> sum = sums_.get(name);
    if (sum && (sum->shape() != grad.shape() || sum->dtype() != grad.dtype())) {
      detail::fail("GradientsAccumulator", "gradient of " + name + " is " + detail::describe(grad) +
                                               " but its sum is " + detail::describe(*sum));
    }
  }
  for (const auto& [name, grad] : grads) {
    const std::optional<TensorHandle> sum = sums_.get(name);
    sums_.insert(name, sum ? ops::add(*sum, grad) : grad);
  }
  ++count_;
}

GradientsParams GradientsAccumulator::take() {
  count_ = 0;
  return std::exchange(sums_, GradientsParams());
}

}  // namespace ember::optim
