// A graph lives as long as the tensors computed by it; what its nodes keep is counted by
// retained_bytes and released by backward; graphs of different threads are independent.
#include <cstdint>
#include <thread>

#include "autodiff/node.h"
#include "autodiff_test_util.h"

namespace ember::test {
namespace {

using autodiff::live_nodes;
using autodiff::retained_bytes;

TEST(Lifetime, GraphIsFreedWithItsTensors) {
  const int64_t nodes_before = live_nodes();
  const uint64_t bytes_before = retained_bytes(autodiff_device());
  {
    const Tensor<1> x = leaf<1>({1, 2}, {2});
    const Tensor<1> loss = x.mul(x).exp().sum();
    // A leaf and three op nodes.
    EXPECT_EQ(live_nodes(), nodes_before + 4);
    EXPECT_GT(retained_bytes(autodiff_device()), bytes_before);
  }
  EXPECT_EQ(live_nodes(), nodes_before);
  EXPECT_EQ(retained_bytes(autodiff_device()), bytes_before);
}

TEST(Lifetime, DeepGraphIsFreedWithoutRecursion) {
  const int64_t nodes_before = live_nodes();
  Tensor<1> y = leaf<1>({1}, {1});
  for (int i = 0; i < 10000; ++i)
    y = y.neg();
  // The last handle dies on the small stack, taking the whole chain with it.
  on_small_stack([y = std::move(y)]() mutable { y = Tensor<1>(); });
  EXPECT_EQ(live_nodes(), nodes_before);
}

TEST(Lifetime, MatmulKeepsBothInputs) {
  const uint64_t before = retained_bytes(autodiff_device());
  const Tensor<2> a = leaf<2>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor<2> b = constant<2>(std::vector<float>(12, 1.0f), {3, 4});
  const Tensor<2> c = a.matmul(b);
  // dA = G B^T needs B, dB = A^T G needs A: 6 + 12 f32 values.
  EXPECT_EQ(retained_bytes(autodiff_device()), before + (6 + 12) * 4);
  c.sum().backward();
  EXPECT_EQ(retained_bytes(autodiff_device()), before);
}

TEST(Lifetime, ABufferKeptTwiceIsCountedOnce) {
  const uint64_t before = retained_bytes(autodiff_device());
  const Tensor<2> x = leaf<2>({1, 2, 3, 4}, {2, 2});
  const Tensor<2> y = x.matmul(x);
  EXPECT_EQ(retained_bytes(autodiff_device()), before + 4 * 4);
  const Tensor<2> z = y.add(x.matmul(x));  // two more nodes keep the same buffer
  EXPECT_EQ(retained_bytes(autodiff_device()), before + 4 * 4);
}

TEST(Lifetime, RetainedBytesAreCountedPerPhysicalDevice) {
  const Device plain = Device::ndarray();
  const Device checkpointing = autodiff_device().gradient_checkpointing();
  const Tensor<2> x = leaf<2>({1, 2, 3, 4}, {2, 2});
  const Tensor<2> y = x.matmul(x);
  // Device values differing only in autodiff or checkpointing name one physical device.
  EXPECT_GT(retained_bytes(plain), 0u);
  EXPECT_EQ(retained_bytes(plain), retained_bytes(autodiff_device()));
  EXPECT_EQ(retained_bytes(checkpointing), retained_bytes(autodiff_device()));
}

TEST(Lifetime, GraphsOfDifferentThreadsAreIndependent) {
  constexpr int kThreads = 4;
  std::vector<std::vector<float>> grads(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &grads] {
      const Tensor<1> x = leaf<1>({1, 2}, {2});
      Tensor<1> y = x;
      for (int i = 0; i < 50; ++i)
        y = y.mul_scalar(1.0).add_scalar(t);
      // Each step passes the gradient through unchanged: d(sum y)/dx = 1.
      grads[t] = grad_of(x, y.sum().backward());
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  for (const std::vector<float>& g : grads)
    EXPECT_EQ(g, (std::vector<float>{1, 1}));
}

}  // namespace
}  // namespace ember::test
