// LaunchQueue's graph replay on a GPU: a chunk of launches is issued directly the first time,
// captured as a graph the second, replayed after; a changed argument is patched into its node, an
// address that changed in a copy means a new capture; and every value is the one the same
// launches give issued one by one (computed here on the host with the same float operations).
// Also: the kernel cache finds a kernel by its key without building its source again.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/gpu_context.h"
#include "backends/cuda/kernel_cache.h"
#include "backends/cuda/launch_queue.h"

namespace ember::cuda {
namespace {

// y = fma(y, a, x): fmaf on both sides, so the host's value is the GPU's bit for bit.
constexpr const char* kAxpySource = R"(
extern "C" __global__ void ember_test_axpy(float* y, const float* x, float a, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaf(y[i], a, x[i]);
}
)";

/// kAxpySource, counting how many times it is asked for.
int axpy_sources_built = 0;
std::string counted_axpy_source(int /*variant*/) {
  ++axpy_sources_built;
  return kAxpySource;
}

constexpr long long kElements = 1000;
constexpr int kLaunchesPerChunk = 6;

class LaunchQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    api_ = load_api(&why);
    int count = 0;
    if (api_ == nullptr || api_->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0)
      GTEST_SKIP() << "no CUDA GPU on this machine (" << (why.empty() ? "no device" : why)
                   << "): the graph-replay cases run on a machine with one "
                      "(docs/backends/cuda.md)";
    gpu_ = std::make_shared<GpuContext>(*api_, 0);
    kernels_ = std::make_unique<KernelCache>(gpu_);
    queue_ = std::make_unique<LaunchQueue>(gpu_);
    axpy_ = kernels_->function(kAxpySource, "ember_test_axpy");
    for (CUdeviceptr* buffer : {&x_, &y_, &z_})
      gpu_->check(api_->cuMemAlloc(buffer, kElements * sizeof(float)), "cuMemAlloc");
    for (long long i = 0; i < kElements; ++i) {
      host_x_.push_back(std::sin(0.1f * static_cast<float>(i)));
      host_y_.push_back(std::cos(0.3f * static_cast<float>(i)));
    }
    upload(x_, host_x_);
    upload(y_, host_y_);
  }
  void TearDown() override {
    if (queue_) queue_->close();
    queue_.reset();
    kernels_.reset();
    for (const CUdeviceptr buffer : {x_, y_, z_}) {
      if (buffer != 0) api_->cuMemFree(buffer);
    }
  }

  void upload(CUdeviceptr to, const std::vector<float>& values) {
    gpu_->check(
        api_->cuMemcpyHtoDAsync(to, values.data(), values.size() * sizeof(float), gpu_->stream()),
        "cuMemcpyHtoDAsync");
    gpu_->synchronize();
  }
  std::vector<float> download(CUdeviceptr from) {
    queue_->drain();
    std::vector<float> values(kElements);
    gpu_->check(
        api_->cuMemcpyDtoHAsync(values.data(), from, values.size() * sizeof(float), gpu_->stream()),
        "cuMemcpyDtoHAsync");
    gpu_->synchronize();
    return values;
  }

  /// One chunk: kLaunchesPerChunk times y = fma(y, a, x) on the GPU, and on host_y_.
  void axpy_chunk(float a) {
    for (int launch = 0; launch < kLaunchesPerChunk; ++launch) {
      LaunchArguments arguments;
      arguments.add(y_);
      arguments.add(x_);
      arguments.add(a);
      arguments.add(kElements);
      queue_->launch(axpy_, static_cast<unsigned>((kElements + 255) / 256), 256,
                     std::move(arguments));
      for (long long i = 0; i < kElements; ++i)
        host_y_[i] = std::fma(host_y_[i], a, host_x_[i]);
    }
    queue_->drain();
  }

  const Api* api_ = nullptr;
  std::shared_ptr<GpuContext> gpu_;
  std::unique_ptr<KernelCache> kernels_;
  std::unique_ptr<LaunchQueue> queue_;
  CUfunction axpy_ = nullptr;
  CUdeviceptr x_ = 0;
  CUdeviceptr y_ = 0;
  CUdeviceptr z_ = 0;
  std::vector<float> host_x_;
  std::vector<float> host_y_;
};

TEST_F(LaunchQueueTest, AKernelFoundByItsKeyBuildsItsSourceOnce) {
  axpy_sources_built = 0;
  const CUfunction first = kernels_->function(counted_axpy_source, "ember_test_axpy", 1);
  EXPECT_EQ(kernels_->function(counted_axpy_source, "ember_test_axpy", 1), first);
  EXPECT_EQ(axpy_sources_built, 1);
  // Other args build the source again; the same text is the same module, so the same kernel.
  EXPECT_EQ(kernels_->function(counted_axpy_source, "ember_test_axpy", 2), first);
  EXPECT_EQ(axpy_sources_built, 2);
  EXPECT_EQ(first, axpy_);
}

TEST_F(LaunchQueueTest, AChunkSeenTwiceIsCapturedThenReplayedWithChangedArgumentsPatched) {
  axpy_chunk(0.5f);  // first sighting: one by one
  EXPECT_EQ(queue_->stats().captures, 0u);
  axpy_chunk(0.5f);  // second: captured
  EXPECT_EQ(queue_->stats().captures, 1u);
  axpy_chunk(0.5f);  // the same arguments: replayed as is
  EXPECT_EQ(queue_->stats().replays, 1u);
  EXPECT_EQ(queue_->stats().patched_nodes, 0u);
  axpy_chunk(0.75f);  // another scalar in every launch: each node patched
  const LaunchQueueStats stats = queue_->stats();
  EXPECT_EQ(stats.captures, 1u);
  EXPECT_EQ(stats.replays, 2u);
  EXPECT_EQ(stats.patched_nodes, static_cast<uint64_t>(kLaunchesPerChunk));
  EXPECT_EQ(download(y_), host_y_) << "a replay computes what the launches one by one do";
}

TEST_F(LaunchQueueTest, ACopyToAnotherAddressIsCapturedAgainAndStaysExact) {
  for (int round = 0; round < 4; ++round) {
    // The copy's destination alternates between rounds 2 and 3: a copy node cannot be patched.
    const CUdeviceptr destination = round == 3 ? x_ : z_;
    queue_->copy(destination, y_, kElements * sizeof(float));
    queue_->fill(y_, 0, kElements * sizeof(float));
    queue_->copy(y_, destination, kElements * sizeof(float));
    if (destination == x_) host_x_ = host_y_;
    axpy_chunk(1.25f);
  }
  EXPECT_EQ(queue_->stats().captures, 2u) << "rounds 2 and 4";
  EXPECT_EQ(queue_->stats().replays, 1u) << "round 3";
  EXPECT_EQ(download(y_), host_y_);
  EXPECT_EQ(download(x_), host_x_) << "round 4 copied y into x";
}

TEST_F(LaunchQueueTest, WithGraphReplayOffEveryChunkIsIssuedDirectly) {
  queue_->set_graph_replay(false);
  for (int round = 0; round < 3; ++round)
    axpy_chunk(0.5f);
  EXPECT_EQ(queue_->stats().captures, 0u);
  EXPECT_EQ(queue_->stats().replays, 0u);
  EXPECT_EQ(queue_->stats().direct_chunks, 3u);
  EXPECT_EQ(download(y_), host_y_);
}

}  // namespace
}  // namespace ember::cuda
