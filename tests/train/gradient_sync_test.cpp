// GradientSync overlaps communication with backward: a bucket is all-reduced while backward is
// still producing the gradients of the others, and the sums come back by param name.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "ember/train/gradient_sync.h"
#include "support/data_parallel_run.h"

namespace ember::train {
namespace {

namespace run = ::ember::test::data_parallel_run;

/// One rank alone: a sum is its input. Counts the all-reduces and wakes whoever waits for one.
class CountingCommunicator final : public collective::Communicator {
 public:
  explicit CountingCommunicator(Device device) : device_(std::move(device)) {}
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const Device& device() const override { return device_; }
  TensorHandle all_reduce(const TensorHandle& x, collective::ReduceOp) override {
    {
      const std::lock_guard lock(mutex_);
      ++calls_;
    }
    called_.notify_all();
    return x;
  }
  TensorHandle broadcast(const TensorHandle& x, int) override { return x; }
  TensorHandle reduce_scatter(const TensorHandle& x, collective::ReduceOp) override { return x; }
  TensorHandle all_gather(const TensorHandle& x) override { return x; }

  /// Whether an all-reduce came within timeout.
  bool wait_for_a_call(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return called_.wait_for(lock, timeout, [&] { return calls_ > 0; });
  }
  int calls() {
    const std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  Device device_;
  std::mutex mutex_;
  std::condition_variable called_;
  int calls_ = 0;
};

TEST(GradientSync, ABucketIsAllReducedWhileBackwardStillRuns) {
  const Device device = Device::ndarray().autodiff();
  device.seed(1);
  const run::Mlp model{nn::LinearConfig{4, 8}.init(device), nn::LinearConfig{8, 3}.init(device)};
  const std::vector<nn::NamedTensor> params = nn::named_parameters(model);
  CountingCommunicator comm(device);
  GradientSync sync(comm, params, 1);  // one bucket per param
  const GradientHook forward = sync.hook();
  std::size_t produced = 0;
  bool reduced_before_the_last = false;
  std::vector<run::Sample> samples;
  for (std::size_t i = 0; i < 6; ++i)
    samples.push_back(*run::samples()->get(i));
  const ClassificationOutput out = run::forward(model, run::make_batch(samples, device));
  const Gradients grads =
      ops::backward(out.loss.handle(), [&](uint64_t leaf, const TensorHandle& grad) {
        // Before handing over the last gradient, backward waits here for a bucket sent earlier
        // (fc2's, which backward reaches first) to be all-reduced on the sync's thread.
        if (++produced == params.size())
          reduced_before_the_last = comm.wait_for_a_call(std::chrono::seconds(10));
        forward(leaf, grad);
      });
  EXPECT_TRUE(reduced_before_the_last);
  const optim::GradientsParams summed = sync.finish();
  EXPECT_EQ(comm.calls(), 4);  // a bucket per param
  for (const nn::NamedTensor& p : params) {
    ASSERT_TRUE(summed.get(p.name).has_value()) << p.name;
    EXPECT_EQ(ops::into_data(*summed.get(p.name)), ops::into_data(*grads.get(p.tensor))) << p.name;
  }
}

TEST(GradientSync, AParamNoGradientReachedCountsAsZeros) {
  const Device device = Device::ndarray().autodiff();
  const run::Mlp model{nn::LinearConfig{4, 8}.init(device), nn::LinearConfig{8, 3}.init(device)};
  CountingCommunicator comm(device);
  GradientSync sync(comm, nn::named_parameters(model), std::size_t{1} << 20);  // one bucket
  // Only fc1 takes part in this loss: fc2's params get no gradient.
  std::vector<run::Sample> samples{*run::samples()->get(0)};
  const Tensor<1> loss = model.fc1.forward(run::make_batch(samples, device).x).sum();
  ops::backward(loss.handle(), sync.hook());
  const optim::GradientsParams summed = sync.finish();
  EXPECT_EQ(comm.calls(), 1);
  const std::vector<double> zeros = ops::into_data(*summed.get("fc2.weight")).to_vector<double>();
  EXPECT_EQ(zeros, std::vector<double>(24, 0.0));
}

}  // namespace
}  // namespace ember::train
