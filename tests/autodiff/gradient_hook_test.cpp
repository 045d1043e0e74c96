// The gradient hook of backward (ember/gradient_hook.h): called once per leaf a gradient
// reaches, with the gradient backward then returns for it, and never for other tensors.
#include <gtest/gtest.h>

#include <map>

#include "ember/ember.h"
#include "ember/gradient_hook.h"

namespace ember {
namespace {

TEST(GradientHook, SeesEveryLeafsFinalGradientOnce) {
  const Device device = Device::ndarray().autodiff();
  const Tensor<1> w0 = Tensor<1>::from_floats({1.0, 2.0}, device).require_grad();
  const Tensor<1> w1 = Tensor<1>::from_floats({3.0, -1.0}, device).require_grad();
  const Tensor<1> unused = Tensor<1>::from_floats({5.0}, device).require_grad();
  // w0 is used twice: its gradient is final only after both uses have passed theirs on.
  const Tensor<1> loss = ((w0 * w1).exp() + w0 * w0).sum();
  std::map<uint64_t, std::vector<TensorHandle>> seen;
  const Gradients grads = ops::backward(
      loss.handle(), [&](uint64_t id, const TensorHandle& grad) { seen[id].push_back(grad); });
  ASSERT_EQ(seen.size(), 2u);
  for (const Tensor<1>& leaf : {w0, w1}) {
    const std::optional<uint64_t> id = ops::leaf_id(leaf.handle());
    ASSERT_TRUE(id.has_value());
    ASSERT_EQ(seen[*id].size(), 1u);
    EXPECT_EQ(ops::into_data(seen[*id].front()), ops::into_data(*grads.get(leaf.handle())));
  }
  // d/dw0 = w1 exp(w0 w1) + 2 w0, by hand.
  const std::vector<double> g0 = ops::into_data(*grads.get(w0.handle())).to_vector<double>();
  EXPECT_NEAR(g0[0], 3.0 * std::exp(3.0) + 2.0, 1e-3);
  EXPECT_NEAR(g0[1], -1.0 * std::exp(-2.0) + 4.0, 1e-5);
  EXPECT_FALSE(ops::leaf_id(loss.handle()).has_value());
  EXPECT_TRUE(ops::leaf_id(unused.handle()).has_value());
}

TEST(GradientHook, AnExceptionItThrowsEndsBackward) {
  const Device device = Device::ndarray().autodiff();
  const Tensor<1> w = Tensor<1>::from_floats({1.0}, device).require_grad();
  const Tensor<1> loss = (w * w).sum();
  EXPECT_THROW(ops::backward(loss.handle(),
                             [](uint64_t, const TensorHandle&) { throw ExecutionError("[t] no"); }),
               ExecutionError);
}

}  // namespace
}  // namespace ember
