// The cuda device's semantics: enumeration on a machine with or without GPUs, a clear error when
// a GPU that is not there is used, and on a GPU: uploads and downloads, the same random tensor as
// cpu for a seed, to_device both ways, recovery after running out of memory, and a steady training
// loop whose reserved bytes stop growing. The op-by-op values are the conformance and gradcheck
// suites' (they run on every device enumerate finds).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/activation_functions.h"
#include "ember/device.h"
#include "ember/devices.h"
#include "ember/error.h"
#include "ember/functional.h"
#include "ember/nn/linear.h"
#include "ember/optim/gradients_params.h"
#include "ember/optim/sgd.h"
#include "ember/tensor.h"
#include "ember/tensor_ops.h"
#include "gpu_device.h"
#include "support/steady_training.h"

namespace ember::test {
namespace {

TEST(CudaDevice, EnumerateListsTheGpusOrNothingAndNeverThrows) {
  const Devices gpus = Device::enumerate(DeviceType::Cuda);
  for (std::size_t i = 0; i < gpus.size(); ++i)
    EXPECT_EQ(gpus[i], Device::cuda(static_cast<int64_t>(i)));
}

TEST(CudaDevice, UsingAGpuThatIsNotThereIsAnExecutionErrorNamingIt) {
  const auto count = static_cast<int64_t>(Device::enumerate(DeviceType::Cuda).size());
  const Device missing = Device::cuda(count);  // one past the last
  try {
    Tensor<1>::zeros({4}, missing).into_data();
    FAIL() << "cuda:" << count << " computed without a GPU";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:" + std::to_string(count)), std::string::npos)
        << e.what();
  }
}

TEST(CudaDevice, UploadAndDownloadKeepEveryByte) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  std::vector<double> values;
  for (int i = 0; i < 1000; ++i)
    values.push_back(std::ldexp(static_cast<double>(i) - 500.5, i % 40 - 20));
  for (const DType dtype : kAllDTypes) {
    const TensorData data = TensorData(values, Shape{10, 100}).convert(dtype);
    const TensorCreationOptions options = TensorCreationOptions(*gpu).with_dtype(dtype);
    const TensorData back = is_float(dtype) ? Tensor<2>::from_data(data, options).into_data()
                            : is_int(dtype) ? Tensor<2, Int>::from_data(data, options).into_data()
                                            : Tensor<2, Bool>::from_data(data, options).into_data();
    EXPECT_EQ(back, data) << dtype;
  }
}

TEST(CudaDevice, ASeedGivesTheSameTensorAsCpu) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  const Device cpu = Device::ndarray();
  for (const Distribution& d : {Distribution::Default, Distribution::uniform(-3.0, 5.0),
                                Distribution::normal(1.0, 2.5), Distribution::bernoulli(0.3)}) {
    for (const DType dtype : {DType::F32, DType::F16, DType::BF16, DType::F64}) {
      gpu->seed(42);
      cpu.seed(42);
      EXPECT_EQ(
          Tensor<2>::random({64, 33}, d, TensorCreationOptions(*gpu).with_dtype(dtype)).into_data(),
          Tensor<2>::random({64, 33}, d, TensorCreationOptions(cpu).with_dtype(dtype)).into_data())
          << dtype;
    }
  }
}

TEST(CudaDevice, ToDeviceWorksBothWays) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  const Tensor<2> host = Tensor<2>::from_data(
      TensorData(std::vector<double>{1, -2, 3.5, 4}, Shape{2, 2}), Device::ndarray());
  const Tensor<2> there = host.to_device(*gpu) * 2.0;
  EXPECT_EQ(there.to_device(Device::ndarray()).into_data(), (host * 2.0).into_data());
}

TEST(CudaDevice, OutOfMemoryIsAnExecutionErrorAndTheDeviceWorksAfterwards) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  // 2^40 f32 elements: 4 TiB, more than any GPU holds.
  try {
    Tensor<1>::zeros({int64_t{1} << 40}, *gpu).into_data();
    FAIL() << "a 4 TiB tensor fit";
  } catch (const ExecutionError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("out of memory"), std::string::npos) << message;
    EXPECT_NE(message.find("4398046511104"), std::string::npos) << message;  // the request
  }
  gpu->memory_cleanup();
  const Tensor<1> x = Tensor<1>::from_floats({1, 2, 3}, *gpu);
  EXPECT_EQ((x + x).into_data().to_vector<double>(), (std::vector<double>{2, 4, 6}));
}

TEST(CudaDevice, ProfileMeasuresOnTheDeviceClockAndNestedWindowsResolveLater) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  const Tensor<2> x = Tensor<2>::ones({2048, 2048}, *gpu);
  gpu->sync();
  std::optional<ProfileDuration> inner;
  auto [product, outer] = gpu->profile([&] {
    auto [y, duration] = gpu->profile([&] { return x.matmul(x); });
    inner = duration;
    return y.matmul(x);
  });
  const std::optional<ProfileTicks> outer_ticks = outer.resolve();
  const std::optional<ProfileTicks> inner_ticks = inner->resolve();
  ASSERT_TRUE(outer_ticks && inner_ticks);
  EXPECT_GT(inner_ticks->duration().count(), 0);
  EXPECT_GT(outer_ticks->duration(), inner_ticks->duration()) << "two products against one";
  EXPECT_EQ(product.sum().into_scalar<double>(), 2048.0 * 2048.0 * 2048.0 * 2048.0);
  // A window in which nothing ran reads as no time.
  EXPECT_FALSE(gpu->profile([] {}).resolve().has_value());
}

/// t's values on the GPU and on ndarray, within the dtype's tolerance.
void expect_same(const TensorData& gpu, const TensorData& reference, const std::string& what) {
  std::string why;
  EXPECT_TRUE(gpu.approx_equal(reference, Tolerance::for_dtype(reference.dtype()), &why))
      << what << ": " << why;
}

TEST(CudaDevice, EveryReductionKernelShapeMatchesNdarray) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  // Many short rows (a warp a row), few long rows (chunks and a second kernel), columns few and
  // long (chunks) or many: each path of the reduction and softmax kernels, which the small
  // shapes of the conformance suite do not all reach.
  const Device cpu = Device::ndarray();
  struct Case {
    int64_t a, b, c, dim;
  };
  for (const Case& k :
       {Case{1, 4096, 37, 2}, Case{1, 3, 100003, 2}, Case{64, 300, 50, 1}, Case{2, 70000, 3, 1},
        Case{1, 5000, 1500, 2}, Case{3, 7, 1024, 2}, Case{5, 9, 1, 2}, Case{2, 33, 513, 2}}) {
    gpu->seed(5);
    const Tensor<3> x = Tensor<3>::random({k.a, k.b, k.c}, Distribution::normal(0.0, 1.0), *gpu);
    const Tensor<3> host = x.to_device(cpu);
    const std::string label = std::to_string(k.a) + "x" + std::to_string(k.b) + "x" +
                              std::to_string(k.c) + " along " + std::to_string(k.dim);
    expect_same(x.sum_dim(k.dim).into_data(), host.sum_dim(k.dim).into_data(), "sum " + label);
    expect_same(x.max_dim(k.dim).into_data(), host.max_dim(k.dim).into_data(), "max " + label);
    expect_same(x.var(k.dim).into_data(), host.var(k.dim).into_data(), "var " + label);
    EXPECT_EQ(x.argmax(k.dim).into_data(), host.argmax(k.dim).into_data()) << "argmax " << label;
    expect_same(activation::softmax(x, k.dim).into_data(),
                activation::softmax(host, k.dim).into_data(), "softmax " + label);
    expect_same(activation::log_softmax(x, k.dim).into_data(),
                activation::log_softmax(host, k.dim).into_data(), "log_softmax " + label);
  }
}

TEST(CudaDevice, ElementwiseKernelsMatchNdarrayAtEveryLengthAndLayout) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  // Lengths around the flat kernel's four elements a thread (a tail of 1 to 3), a one-element
  // input broadcast, and inputs that start one element into their buffer (not aligned for the
  // vector loads: the strided kernel runs them).
  const Device cpu = Device::ndarray();
  for (const int64_t n : {1, 3, 4, 5, 1023, 4097, 1 << 20}) {
    gpu->seed(9);
    const Tensor<1> x = Tensor<1>::random({n + 1}, Distribution::normal(0.0, 1.0), *gpu);
    const Tensor<1> y = Tensor<1>::random({n + 1}, Distribution::normal(0.0, 1.0), *gpu);
    const Tensor<1> one = Tensor<1>::random({1}, Distribution::normal(0.0, 1.0), *gpu);
    const Tensor<1> hx = x.to_device(cpu), hy = y.to_device(cpu), hone = one.to_device(cpu);
    const std::string label = " of " + std::to_string(n);
    const auto head = [n](const Tensor<1>& t) { return t.narrow(0, 0, n); };
    const auto tail = [n](const Tensor<1>& t) { return t.narrow(0, 1, n); };
    expect_same((head(x) + head(y)).into_data(), (head(hx) + head(hy)).into_data(), "add" + label);
    expect_same((head(x) * one).into_data(), (head(hx) * hone).into_data(),
                "mul by one element" + label);
    expect_same(head(x).exp().into_data(), head(hx).exp().into_data(), "exp" + label);
    expect_same((tail(x) - head(y)).into_data(), (tail(hx) - head(hy)).into_data(),
                "sub one element in" + label);
    expect_same(((head(x) * 0.5).tanh() + head(y)).into_data(),
                ((head(hx) * 0.5).tanh() + head(hy)).into_data(), "a fused chain" + label);
  }
}

TEST(CudaDevice, PermutesMatchNdarrayWhateverTheirTilesAndDtype) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  // Transposes (read contiguous along a dim other than the last) go through 32 x 32 tiles in
  // shared memory: sizes around a tile, partial tiles, several planes, and 2- and 8-byte elements
  // as well as 4.
  const Device cpu = Device::ndarray();
  for (const auto& [dims, axes] :
       std::vector<std::pair<Shape, ops::Dims>>{{Shape{64, 96}, {1, 0}},
                                                {Shape{37, 70}, {1, 0}},
                                                {Shape{3, 33, 65}, {0, 2, 1}},
                                                {Shape{5, 31, 7, 40}, {2, 0, 3, 1}},
                                                {Shape{2, 256, 12, 64}, {0, 2, 3, 1}}}) {
    gpu->seed(3);
    const TensorHandle x = ops::random(dims, Distribution::normal(0.0, 1.0),
                                       TensorCreationOptions(*gpu), TensorKind::Float);
    for (const DType dtype : {DType::F32, DType::BF16, DType::F64}) {
      const TensorHandle typed = ops::cast(x, dtype);
      const TensorHandle host = ops::to_device(typed, cpu);
      EXPECT_EQ(ops::into_data(ops::permute(typed, axes)), ops::into_data(ops::permute(host, axes)))
          << dims << " permuted, " << dtype_name(dtype);
    }
  }
}

TEST(CudaDevice, ProductsOfTransposesMatchNdarray) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  // Products whose operands are transposes (made dense by a copy): either side, batched, a linear
  // layer's weight with a batch dim of 1 (its batch folded into rows), a reshape that changes a
  // transpose's last two dims, and transposes read or used by other ops.
  const Device cpu = Device::ndarray();
  const auto random = [&](const Shape& shape) {
    return ops::random(shape, Distribution::normal(0.0, 1.0), TensorCreationOptions(*gpu),
                       TensorKind::Float);
  };
  gpu->seed(11);
  const TensorHandle a = random(Shape{3, 37, 20});  // [B, M, K]
  const TensorHandle b = random(Shape{3, 20, 45});  // [B, K, N]
  const TensorHandle w = random(Shape{45, 20});     // [N, K]: a linear layer's weight
  const TensorHandle at = ops::transpose(a), bt = ops::transpose(b);  // [B, K, M], [B, N, K]
  const auto host = [&](const TensorHandle& x) { return ops::to_device(x, cpu); };
  const auto same = [&](const TensorHandle& on_gpu, const TensorHandle& on_host,
                        const std::string& what) {
    expect_same(ops::into_data(on_gpu), ops::into_data(on_host), what);
  };
  same(ops::matmul(ops::transpose(at), b), ops::matmul(host(a), host(b)), "(a^T)^T b");
  same(ops::matmul(a, ops::transpose(bt)), ops::matmul(host(a), host(b)), "a (b^T)^T");
  same(ops::matmul(ops::transpose(at), ops::transpose(bt)), ops::matmul(host(a), host(b)),
       "both sides transposed");
  // A linear layer's weight, transposed then given a batch dim of 1 by a reshape.
  const auto wt = [](const TensorHandle& x) {
    return ops::reshape(ops::transpose(x), {1, 20, 45});
  };
  same(ops::matmul(a, wt(w)), ops::matmul(host(a), wt(host(w))), "a linear layer");
  same(ops::matmul(ops::transpose(at), wt(w)), ops::matmul(host(a), wt(host(w))),
       "a linear layer of a transpose");
  // A reshape that changes the transpose's last two dims: the product reads the copy.
  const TensorHandle square = random(Shape{6, 4});
  const auto folded = [](const TensorHandle& x) {
    return ops::reshape(ops::transpose(x), {3, 8, 1});
  };
  const TensorHandle c = random(Shape{3, 5, 8});
  same(ops::matmul(c, folded(square)), ops::matmul(host(c), folded(host(square))),
       "a product of a reshaped transpose");
  same(ops::transpose(w), ops::transpose(host(w)), "the transpose itself, read");
  same(ops::add(bt, bt), ops::add(host(bt), host(bt)), "an op reading a transpose");
  // A transpose of a transpose is its source, also under a reshape that keeps the last two dims.
  same(ops::transpose(at), host(a), "a transpose of a transpose, read");
  same(ops::add(ops::transpose(ops::reshape(at, {1, 3, 20, 37})), ops::reshape(a, {1, 3, 37, 20})),
       ops::mul_scalar(ops::reshape(host(a), {1, 3, 37, 20}), 2.0),
       "a transpose of a reshaped transpose");
}

TEST(CudaDevice, BytesReservedStayFlatOverASteadyTrainingLoop) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  const Device device = gpu->autodiff();
  device.memory_cleanup();
  device.seed(7);
  test::SteadyMlp model = device.memory_persistent_allocations(device, [](const Device& d) {
    return test::SteadyMlp{nn::LinearConfig{32, 1280}.init(d), nn::LinearConfig{1280, 16}.init(d)};
  });
  const Tensor<2> inputs = fixed_matrix(1024, 32, device);
  const Tensor<2> targets = fixed_matrix(1024, 16, device) * 0.5;
  optim::Sgd sgd;
  std::vector<uint64_t> reserved;
  std::vector<double> losses;
  for (int step = 0; step < 30; ++step) {
    const Tensor<2> loss = module::mse_loss(model.forward(inputs), targets);
    losses.push_back(loss.into_scalar<double>());
    sgd.step(model, optim::GradientsParams::from(model, loss.backward()), 0.1);
    device.sync();
    reserved.push_back(device.memory_pool_usage()->bytes_reserved);
  }
  EXPECT_LT(losses.back(), losses.front()) << "the loop trains";
  for (std::size_t step = 10; step < reserved.size(); ++step)
    EXPECT_EQ(reserved[step], reserved[9]) << "step " << step;
}

TEST(CudaDevice, ATrainingLoopReplayedAsGraphsComputesWhatItsFirstRunDid) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  const Device device = gpu->autodiff();
  // The first run's chunks of launches are new (issued one by one, then captured as graphs);
  // the second run's are known (replayed, their changed arguments patched in): every loss must
  // be the same, bit for bit. launch_queue_test.cpp checks that replays happen.
  const auto losses = [&] {
    device.seed(11);
    test::SteadyMlp model{nn::LinearConfig{32, 256}.init(device),
                          nn::LinearConfig{256, 16}.init(device)};
    const Tensor<2> inputs = fixed_matrix(512, 32, device);
    const Tensor<2> targets = fixed_matrix(512, 16, device) * 0.5;
    optim::Sgd sgd;
    std::vector<double> values;
    for (int step = 0; step < 8; ++step) {
      const Tensor<2> loss = module::mse_loss(model.forward(inputs), targets);
      values.push_back(loss.into_scalar<double>());
      sgd.step(model, optim::GradientsParams::from(model, loss.backward()), 0.1);
    }
    return values;
  };
  const std::vector<double> first = losses();
  EXPECT_EQ(losses(), first);
  EXPECT_LT(first.back(), first.front()) << "the loop trains";
}

}  // namespace
}  // namespace ember::test
