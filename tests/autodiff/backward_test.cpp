// backward: gradients by hand, accumulation, broadcasting, the Gradients container, and the
// errors of a second backward or a backward on a constant.
#include "autodiff_test_util.h"

namespace ember::test {
namespace {

TEST(Backward, GradientOfXTimesYPlusX) {
  const Tensor<1> x = leaf<1>({1, 2, 3}, {3});
  const Tensor<1> y = leaf<1>({4, 5, 6}, {3});
  const Gradients grads = x.mul(y).add(x).sum().backward();
  // d(sum xy + x)/dx = y + 1, d/dy = x.
  EXPECT_EQ(grad_of(x, grads), (std::vector<float>{5, 6, 7}));
  EXPECT_EQ(grad_of(y, grads), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(grads.size(), 2u);
}

TEST(Backward, TensorUsedSeveralTimesAccumulates) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  // d(sum x*x + x + x)/dx = 2x + 2.
  const Gradients grads = x.mul(x).add(x).add(x).sum().backward();
  EXPECT_EQ(grad_of(x, grads), (std::vector<float>{4, 6}));
}

TEST(Backward, IntermediateUsedTwiceAccumulates) {
  const Tensor<1> x = leaf<1>({1, 3}, {2});
  const Tensor<1> h = x.mul_scalar(2);
  // sum(h*h + h) with h = 2x: d/dx = (2h + 1) * 2 = 8x + 2.
  EXPECT_EQ(grad_of(x, h.mul(h).add(h).sum().backward()), (std::vector<float>{10, 26}));
}

TEST(Backward, BroadcastGradientIsSummedToTheOperandShape) {
  const Tensor<2> x = leaf<2>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor<2> b = leaf<2>({10, 20, 30}, {1, 3});
  const Gradients grads = x.add(b).mul(x).sum().backward();
  // d(sum (x+b)x)/db[j] = sum_i x[i][j] = {1+4, 2+5, 3+6}; d/dx = 2x + b.
  EXPECT_EQ(grad_of(b, grads), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(grad_of(x, grads), (std::vector<float>{12, 24, 36, 18, 30, 42}));
}

// A transposed matmul operand gets its gradient computed transposed (rules/matmul.cpp); the
// values must be those of the plain formulas. x @ W^T weighted by c: dW = c^T x, dx = c W.
TEST(Backward, MatmulWithATransposedRightOperand) {
  const Tensor<2> x = leaf<2>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor<2> w = leaf<2>({1, 0, -1, 2, 1, 0}, {2, 3});
  const Tensor<2> c = constant<2>({1, 2, 3, 4}, {2, 2});
  const Gradients grads = x.matmul(w.transpose()).mul(c).sum().backward();
  EXPECT_EQ(grad_of(w, grads), (std::vector<float>{13, 17, 21, 18, 24, 30}));
  EXPECT_EQ(grad_of(x, grads), (std::vector<float>{5, 2, -1, 11, 4, -3}));
}

// The same over a broadcast batch dim: W's gradient is summed over the batches.
TEST(Backward, BatchedMatmulWithATransposedRightOperand) {
  const Tensor<3> x = leaf<3>({1, 2, 3, 4, 5, 6}, {2, 1, 3});
  const Tensor<3> w = leaf<3>({1, 0, -1, 2, 1, 0}, {1, 2, 3});
  const Tensor<3> c = constant<3>({1, 2, 3, 4}, {2, 1, 2});
  const Gradients grads = x.matmul(w.transpose()).mul(c).sum().backward();
  EXPECT_EQ(grad_of(w, grads), (std::vector<float>{13, 17, 21, 18, 24, 30}));
  EXPECT_EQ(grad_of(x, grads), (std::vector<float>{5, 2, -1, 11, 4, -3}));
}

// P^T @ Q weighted by c: dP = Q c^T, dQ = P c.
TEST(Backward, MatmulWithATransposedLeftOperand) {
  const Tensor<2> p = leaf<2>({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor<2> q = leaf<2>({1, 0, 0, 1, 1, 1}, {3, 2});
  const Tensor<2> c = constant<2>({1, 2, 3, 4}, {2, 2});
  const Gradients grads = p.transpose().matmul(q).mul(c).sum().backward();
  EXPECT_EQ(grad_of(p, grads), (std::vector<float>{1, 3, 2, 4, 3, 7}));
  EXPECT_EQ(grad_of(q, grads), (std::vector<float>{7, 10, 15, 22, 23, 34}));
}

TEST(Backward, SeedIsOnesOfTheRootShape) {
  const Tensor<2> x = leaf<2>({1, 2, 3, 4}, {2, 2});
  // The root has 4 elements: each gets a gradient of 1, so d/dx = 3.
  EXPECT_EQ(grad_of(x, x.mul_scalar(3).backward()), (std::vector<float>{3, 3, 3, 3}));
}

TEST(Backward, BackwardOfALeafIsOnes) {
  const Tensor<1> x = leaf<1>({5, 6}, {2});
  EXPECT_EQ(grad_of(x, x.backward()), (std::vector<float>{1, 1}));
}

TEST(Backward, ConstantOperandGetsNoGradient) {
  const Tensor<2> c = constant<2>({1, 2, 3, 4}, {2, 2});
  const Tensor<2> x = leaf<2>({5, 6, 7, 8}, {2, 2});
  const Gradients grads = x.mul(c).sum().backward();
  EXPECT_EQ(grad_of(x, grads), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_FALSE(c.grad(grads).has_value());
  EXPECT_EQ(grads.size(), 1u);
}

TEST(Backward, LeafUnrelatedToTheRootGetsNoGradient) {
  const Tensor<1> x = leaf<1>({1}, {1});
  const Tensor<1> unrelated = leaf<1>({2}, {1});
  EXPECT_FALSE(unrelated.grad(x.exp().backward()).has_value());
}

TEST(Backward, MultiOutputOpRoutesTheGradientOfItsValues) {
  const Tensor<1> x = leaf<1>({3, 1, 2}, {3});
  const auto [sorted, indices] = ops::sort_with_indices(x.handle(), 0);
  const Tensor<1> weights = constant<1>({1, 10, 100}, {3});
  // sorted = {x1, x2, x0}: x0 has weight 100, x1 weight 1, x2 weight 10.
  const Gradients grads = Tensor<1>(sorted).mul(weights).sum().backward();
  EXPECT_EQ(grad_of(x, grads), (std::vector<float>{100, 1, 10}));
}

TEST(Backward, LeafServesSeveralGraphs) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  EXPECT_EQ(grad_of(x, x.mul_scalar(2).sum().backward()), (std::vector<float>{2, 2}));
  EXPECT_EQ(grad_of(x, x.mul_scalar(5).sum().backward()), (std::vector<float>{5, 5}));
}

TEST(Backward, GradRemoveAndReplace) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  Gradients grads = x.mul_scalar(4).sum().backward();
  const std::optional<Tensor<1>> removed = x.grad_remove(grads);
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(values<float>(*removed), (std::vector<float>{4, 4}));
  EXPECT_FALSE(x.grad(grads).has_value());
  EXPECT_TRUE(grads.empty());

  x.grad_replace(grads, constant<1>({7, 8}, {2}));
  EXPECT_EQ(grad_of(x, grads), (std::vector<float>{7, 8}));
  EXPECT_INVALID(x.grad_replace(grads, constant<1>({1, 2, 3}, {3})), "[grad_replace]", "[3]",
                 "[2]");
  EXPECT_INVALID(x.mul_scalar(2).grad_replace(grads, constant<1>({1, 2}, {2})), "[grad_replace]",
                 "not a leaf");
}

TEST(Backward, SecondBackwardThroughAGraphThrows) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  const Tensor<1> h = x.exp();
  const Tensor<1> loss = h.sum();
  loss.backward();
  EXPECT_INVALID(loss.backward(), "[backward]", "already released by a previous backward()");
  // A new graph through a released node is released too.
  EXPECT_INVALID(h.mul_scalar(2).sum().backward(), "[backward]", "already released");
}

TEST(Backward, BackwardOnAGradientThrows) {
  const Tensor<1> x = leaf<1>({1, 2}, {2});
  const std::optional<Tensor<1>> grad = x.grad(x.mul(x).sum().backward());
  ASSERT_TRUE(grad.has_value());
  EXPECT_FALSE(is_tracked(*grad));
  EXPECT_INVALID(grad->backward(), "[backward]", "not tracked");
}

TEST(Backward, BackwardOnAConstantThrows) {
  EXPECT_INVALID(constant<1>({1}, {1}).backward(), "[backward]", "not tracked");
  EXPECT_INVALID(Tensor<1>::from_floats({1}, Device::ndarray()).backward(), "[backward]",
                 "autodiff off");
}

TEST(Backward, DeepChainNeedsNoRecursion) {
  constexpr int kDepth = 5000;
  on_small_stack([] {
    const Tensor<1> x = leaf<1>({0, 1}, {2});
    Tensor<1> y = x;
    for (int i = 0; i < kDepth; ++i)
      y = y.add_scalar(1.0);
    EXPECT_EQ(values<float>(y), (std::vector<float>{kDepth, kDepth + 1}));
    // Each add_scalar passes the gradient through unchanged.
    EXPECT_EQ(grad_of(x, y.sum().backward()), (std::vector<float>{1, 1}));
  });
}

}  // namespace
}  // namespace ember::test
