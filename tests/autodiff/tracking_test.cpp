// Which tensors are tracked: leaves that require grad and results of recorded ops, on an
// autodiff device, while recording. Everything else is a constant.
#include <thread>

#include "autodiff_test_util.h"

namespace ember::test {
namespace {

TEST(Tracking, LeafRequiresGradAndIsTracked) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  EXPECT_TRUE(x.is_require_grad());
  EXPECT_TRUE(is_tracked(x));
}

TEST(Tracking, TensorOnAutodiffDeviceIsAConstantUntilItRequiresGrad) {
  const Tensor<1> c = constant<1>({1, 2}, {2});
  EXPECT_FALSE(c.is_require_grad());
  EXPECT_FALSE(is_tracked(c));
  EXPECT_FALSE(is_tracked(c.exp()));
}

TEST(Tracking, ResultOfATrackedTensorIsTrackedButNotALeaf) {
  const Tensor<1> y = leaf<1>({1, 2}, {2}).exp();
  EXPECT_TRUE(is_tracked(y));
  EXPECT_FALSE(y.is_require_grad());
  EXPECT_TRUE(y.device().is_autodiff());
}

TEST(Tracking, AutodiffOnATrackedTensorKeepsItsGraphAndWithoutAutodiffCutsIt) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  const Tensor<1> y = x.mul_scalar(3.0);
  EXPECT_TRUE(is_tracked(y.autodiff()));
  EXPECT_FALSE(is_tracked(y.without_autodiff()));
  // d(sum(3x))/dx = 3 for every element.
  const Gradients grads = y.autodiff().sum().backward();
  EXPECT_EQ(x.grad(grads)->into_data().to_vector<float>(), std::vector<float>({3, 3}));
}

TEST(Tracking, RequireGradNeedsAnAutodiffDevice) {
  const Tensor<1> x = Tensor<1>::from_floats({1, 2}, Device::ndarray());
  EXPECT_INVALID(x.require_grad(), "[require_grad]", "ndarray", "autodiff off");
  EXPECT_INVALID(x.set_require_grad(true), "[require_grad]", "autodiff off");
}

TEST(Tracking, RequireGradNeedsAFloatTensor) {
  const TensorHandle ints = ops::zeros({2}, autodiff_device(), TensorKind::Int);
  EXPECT_INVALID(ops::require_grad(ints), "[require_grad]", "Float", "i64");
}

TEST(Tracking, RequireGradOnALeafKeepsTheLeaf) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  const Tensor<1> again = x.require_grad();
  const Gradients grads = x.mul_scalar(3).sum().backward();
  // d(sum 3x)/dx = 3, found through either handle: they are one leaf.
  EXPECT_EQ(grad_of(again, grads), (std::vector<float>{3, 3}));
}

TEST(Tracking, RequireGradOnAResultStartsANewLeaf) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  const Tensor<1> y = x.mul_scalar(2).require_grad();
  EXPECT_TRUE(y.is_require_grad());
  const Gradients grads = y.mul_scalar(3).sum().backward();
  EXPECT_EQ(grad_of(y, grads), (std::vector<float>{3, 3}));
  EXPECT_FALSE(x.grad(grads).has_value());  // cut from x's graph
}

TEST(Tracking, OpsWithoutGradientGiveConstants) {
  const Tensor<2> x = leaf<2>({1, -2, 3, 0}, {2, 2});
  EXPECT_FALSE(is_tracked(x.greater_elem(0)));
  EXPECT_FALSE(is_tracked(x.argmax(1)));
}

TEST(Tracking, IntegerAndBoolTensorsAreNeverTracked) {
  const Tensor<1> x = leaf<1>({1.5, 2.5}, {2});
  EXPECT_FALSE(is_tracked(x.to_int()));
  EXPECT_FALSE(is_tracked(x.to_bool()));
}

TEST(Tracking, MultiOutputOpTracksOnlyItsFloatOutputs) {
  const auto [sorted, indices] = ops::sort_with_indices(leaf<1>({3, 1, 2}, {3}).handle(), 0);
  EXPECT_TRUE(is_tracked(sorted));
  EXPECT_FALSE(is_tracked(indices));
}

TEST(Tracking, DetachGivesAConstantWithTheSameValues) {
  const Tensor<1> y = leaf<1>({1, 2}, {2}).mul_scalar(2);
  const Tensor<1> d = y.detach();
  EXPECT_FALSE(is_tracked(d));
  EXPECT_FALSE(is_tracked(d.exp()));
  EXPECT_EQ(values<float>(d), (std::vector<float>{2, 4}));
  EXPECT_TRUE(is_tracked(y));  // detach makes a new tensor
}

TEST(Tracking, SetRequireGradFalseDetaches) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  const Tensor<1> off = x.set_require_grad(false);
  EXPECT_FALSE(is_tracked(off));
  EXPECT_TRUE(off.set_require_grad(true).is_require_grad());
}

TEST(Tracking, WithoutAutodiffGivesAConstant) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  EXPECT_FALSE(is_tracked(x.without_autodiff()));
  EXPECT_FALSE(is_tracked(x.without_autodiff().exp()));
}

TEST(Tracking, NoGradGuardStopsRecordingUntilItEnds) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  {
    const NoGradGuard outer;
    EXPECT_FALSE(autodiff::is_recording());
    EXPECT_FALSE(is_tracked(x.exp()));
    {
      const NoGradGuard inner;
      EXPECT_FALSE(autodiff::is_recording());
    }
    EXPECT_FALSE(autodiff::is_recording());  // the inner guard restores the outer state
  }
  EXPECT_TRUE(autodiff::is_recording());
  EXPECT_TRUE(is_tracked(x.exp()));
}

TEST(Tracking, NoGradGuardIsPerThread) {
  const NoGradGuard guard;
  bool other_thread_records = false;
  std::thread([&] {
    other_thread_records = autodiff::is_recording() && is_tracked(leaf<1>({1}, {1}).exp());
  }).join();
  EXPECT_TRUE(other_thread_records);
}

TEST(Tracking, ConstantOnAPlainDeviceMixesWithATrackedTensor) {
  // Same physical device, autodiff off: the constant comes first, the result still records.
  const Tensor<1> c = Tensor<1>::from_floats({2, 3}, Device::ndarray());
  const Tensor<1> x = leaf<1>({5, 7}, {2});
  const Tensor<1> y = c.mul(x);
  EXPECT_TRUE(is_tracked(y));
  EXPECT_TRUE(y.device().is_autodiff());
  // d(sum c*x)/dx = c
  EXPECT_EQ(grad_of(x, y.sum().backward()), (std::vector<float>{2, 3}));
}

}  // namespace
}  // namespace ember::test
