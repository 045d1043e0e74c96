// cuDNN in the cuda backend. Its loader (cudnn_api.h), wherever libcudnn.so.9 opens (no GPU
// needed): every entry point of the list is found. Its convolutions (convolution.h), called
// directly on a GPU: every form the backend sends (the forward convolution; the transposed one,
// and so every input gradient, as BackwardData; the weight gradient of both directions as
// BackwardFilter) with 1 to 3 spatial dims, groups, strides, padding and dilation, in every float
// dtype, must be taken by cuDNN, not refused (so the conformance and gradcheck suites' cuda values
// are cuDNN's), and match ndarray's kernels. Each case skips, saying why, where its library or
// GPU is not there.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/convolution.h"
#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cudnn_api.h"
#include "backends/cuda/gpu_context.h"
#include "backends/ndarray/kernels.h"
#include "ir/ops.h"
#include "support/op_values.h"

namespace ember::cuda {
namespace {

TEST(CudnnLoader, VersionTextReadsCudnnGetVersion) {
  EXPECT_EQ(cudnn_version_text(91900), "9.19.0");
  EXPECT_EQ(cudnn_version_text(90102), "9.1.2");
}

TEST(CudnnLoader, FindsEveryEntryPointWhereLibcudnnOpens) {
#ifndef EMBER_WITH_CUDNN
  GTEST_SKIP() << "ember was built without cuDNN's headers (cudnn.h; EMBER_CUDNN_INCLUDE_DIR): "
                  "the backend never opens libcudnn";
#else
  std::string why;
  const CudnnApi* api = load_cudnn(&why);
  // Not opening is the one acceptable absence; a library that opens must serve.
  if (api == nullptr && why.starts_with("dlopen("))
    GTEST_SKIP() << "libcudnn.so." << CUDNN_MAJOR << " does not open on this machine (" << why
                 << "): the loader is checked where it does (PyTorch's pip wheels put it on "
                    "LD_LIBRARY_PATH)";
  ASSERT_NE(api, nullptr) << why;
#define EMBER_CUDNN_EXPECT_FOUND(name) EXPECT_NE(api->name, nullptr) << #name;
  EMBER_CUDNN_FUNCTIONS(EMBER_CUDNN_EXPECT_FOUND)
#undef EMBER_CUDNN_EXPECT_FOUND
  EXPECT_TRUE(cudnn_version_text(api->version).starts_with(std::to_string(CUDNN_MAJOR) + "."))
      << cudnn_version_text(api->version);
#endif
}

/// A forward convolution: x [N, C, *in] by w [K, C / groups, *kernel].
struct ConvCase {
  std::string name;
  Shape x;
  Shape w;
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;
  std::vector<int64_t> dilation;
  int64_t groups = 1;
};

/// The conformance table's geometries (tests/support/op_cases_conv.cpp) and the bench's shape,
/// smaller.
std::vector<ConvCase> conv_cases() {
  return {
      {"conv1d/stride", {2, 3, 8}, {4, 3, 3}, {2}, {0}, {1}},
      {"conv1d/padding", {1, 2, 5}, {3, 2, 2}, {1}, {1}, {1}},
      {"conv2d/stride_padding_dilation", {2, 2, 6, 5}, {3, 2, 3, 2}, {2, 1}, {1, 0}, {1, 2}},
      {"conv2d/groups", {1, 4, 4, 4}, {6, 2, 2, 2}, {1, 1}, {1, 1}, {1, 1}, 2},
      {"conv2d/depthwise", {2, 8, 7, 7}, {8, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 8},
      {"conv2d/bench", {2, 16, 14, 14}, {32, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"conv3d", {1, 2, 3, 4, 3}, {2, 2, 2, 2, 2}, {1, 2, 1}, {0, 1, 0}, {1, 1, 1}},
      {"conv3d/groups_dilation",
       {1, 4, 5, 5, 5},
       {4, 2, 2, 2, 2},
       {1, 1, 2},
       {1, 0, 1},
       {2, 1, 1},
       2},
  };
}

/// The first GPU, when the driver and a GPU are there.
std::shared_ptr<GpuContext> first_gpu(std::string& why) {
  const Api* api = load_api(&why);
  if (api == nullptr) return nullptr;
  int count = 0;
  if (api->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    why = "the CUDA driver reports no GPU";
    return nullptr;
  }
  return std::make_shared<GpuContext>(*api, 0);
}

/// A tensor's bytes in GPU memory, freed with it.
class GpuTensor {
 public:
  GpuTensor(std::shared_ptr<GpuContext> gpu, std::size_t bytes) : gpu_(std::move(gpu)) {
    gpu_->check(gpu_->api().cuMemAlloc(&address_, bytes == 0 ? 1 : bytes), "cuMemAlloc");
  }
  GpuTensor(std::shared_ptr<GpuContext> gpu, const TensorData& data)
      : GpuTensor(std::move(gpu), data.bytes().size()) {
    gpu_->check(gpu_->api().cuMemcpyHtoDAsync(address_, data.bytes().data(), data.bytes().size(),
                                              gpu_->stream()),
                "cuMemcpyHtoDAsync");
    gpu_->synchronize();
  }
  ~GpuTensor() { gpu_->api().cuMemFree(address_); }
  GpuTensor(const GpuTensor&) = delete;
  GpuTensor& operator=(const GpuTensor&) = delete;

  CUdeviceptr address() const { return address_; }
  TensorData read(const Shape& shape, DType dtype) const {
    std::vector<std::byte> bytes(static_cast<std::size_t>(shape.num_elements()) *
                                 dtype_size(dtype));
    gpu_->synchronize();
    gpu_->check(gpu_->api().cuMemcpyDtoHAsync(bytes.data(), address_, bytes.size(), gpu_->stream()),
                "cuMemcpyDtoHAsync");
    gpu_->synchronize();
    return TensorData(std::move(bytes), shape, dtype);
  }

 private:
  std::shared_ptr<GpuContext> gpu_;
  CUdeviceptr address_ = 0;
};

/// Runs call on the GPU; the written tensor, or a failure naming cuDNN's refusal.
::testing::AssertionResult run_on_gpu(const std::shared_ptr<GpuContext>& gpu,
                                      CudnnConvolutions& cudnn, ConvCall call,
                                      const ConvShape& shape, const TensorData& x,
                                      const TensorData& w, const TensorData& y,
                                      TensorData& written) {
  const GpuTensor x_gpu(gpu, x);
  const GpuTensor w_gpu(gpu, w);
  const GpuTensor y_gpu(gpu, y);
  std::unique_ptr<GpuTensor> workspace;
  std::string why;
  gpu->make_current();
  const bool ran = cudnn.run(
      call, shape, {x_gpu.address(), w_gpu.address(), y_gpu.address()},
      [&](std::size_t bytes) {
        workspace = std::make_unique<GpuTensor>(gpu, bytes);
        return workspace->address();
      },
      &why);
  if (!ran) return ::testing::AssertionFailure() << "cuDNN refused: " << why;
  const GpuTensor& out = call == ConvCall::Forward        ? y_gpu
                         : call == ConvCall::BackwardData ? x_gpu
                                                          : w_gpu;
  const TensorData& like = call == ConvCall::Forward ? y : call == ConvCall::BackwardData ? x : w;
  written = out.read(like.shape(), like.dtype());
  return ::testing::AssertionSuccess();
}

/// actual against ndarray's expected, each element a sum of terms products of values in [-1, 1]:
/// besides dtype's tolerance, the rounding that two orders of summation may differ by (about
/// terms units in the last place: cuDNN splits its sums otherwise than ndarray's loops; TF32 is
/// three orders of magnitude off that).
::testing::AssertionResult matches(const TensorData& actual, const TensorData& expected,
                                   DType dtype, int64_t terms) {
  Tolerance tolerance = Tolerance::for_dtype(dtype);
  if (dtype == DType::F32 || dtype == DType::F64) {
    const double unit = dtype == DType::F32 ? 0x1p-24 : 0x1p-53;
    tolerance.atol = std::max(tolerance.atol, static_cast<double>(terms) * unit);
  }
  std::string why;
  if (actual.convert(DType::F64).approx_equal(expected.convert(DType::F64), tolerance, &why))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << why;
}

void check_case(const std::shared_ptr<GpuContext>& gpu, CudnnConvolutions& cudnn, const ConvCase& c,
                DType dtype, bool tf32) {
  SCOPED_TRACE(c.name + " " + std::string(dtype_name(dtype)) + (tf32 ? " tf32" : ""));
  const ir::ConvGeometry geometry{
      c.stride, c.padding, c.dilation, std::vector<int64_t>(c.stride.size(), 0), c.groups, false};
  const test::ValueSpec unit{-1.0, 1.0};
  const TensorData x = test::make_values(c.x, dtype, unit, test::seed_for(c.name, 0));
  const TensorData w = test::make_values(c.w, dtype, unit, test::seed_for(c.name, 1));
  const ir::TensorMeta metas[] = {{c.x, dtype}, {c.w, dtype}};
  const ir::TensorMeta y_meta = ir::infer(ir::Op(ir::Conv{geometry}), metas)[0];
  const TensorData g = test::make_values(y_meta.shape, dtype, unit, test::seed_for(c.name, 2));
  const ConvShape shape{.dtype = dtype,
                        .x = c.x.dims(),
                        .w = c.w.dims(),
                        .y = y_meta.shape.dims(),
                        .stride = c.stride,
                        .padding = c.padding,
                        .dilation = c.dilation,
                        .groups = c.groups,
                        .tf32 = tf32};
  // TF32 rounds inputs to 10 bits of mantissa: bf16's tolerance covers it.
  const DType tolerance = tf32 ? DType::BF16 : dtype;
  // The terms of each output's sum: forward, a window of the group's input channels; backward
  // data, of its output channels; backward filter, every sample's output positions.
  const int64_t window = Shape(c.w).num_elements() / (c.w[0] * c.w[1]);
  const int64_t forward_terms = c.w[1] * window;
  const int64_t data_terms = c.w[0] / c.groups * window;
  const int64_t filter_terms = y_meta.shape.num_elements() / y_meta.shape[1];
  const TensorData zeros_x = TensorData::zeros(c.x, dtype);
  const TensorData zeros_w = TensorData::zeros(c.w, dtype);
  const TensorData zeros_y = TensorData::zeros(y_meta.shape, dtype);
  TensorData out;

  ASSERT_TRUE(run_on_gpu(gpu, cudnn, ConvCall::Forward, shape, x, w, zeros_y, out)) << "forward";
  const TensorData* forward_in[] = {&x, &w};
  EXPECT_TRUE(matches(out, ndarray::run(ir::Conv{geometry}, forward_in, {&y_meta, 1}), tolerance,
                      forward_terms))
      << "forward";

  // The transposed convolution of g back to x's shape: output_padding gets back the inputs the
  // forward convolution's floor dropped (autodiff's adjoint geometry).
  ir::ConvGeometry transposed = geometry;
  transposed.transposed = true;
  for (std::size_t d = 0; d < c.stride.size(); ++d) {
    const int64_t reach = c.dilation[d] * (c.w[2 + d] - 1) + 1;
    transposed.output_padding[d] = (c.x[2 + d] + 2 * c.padding[d] - reach) % c.stride[d];
  }
  ASSERT_TRUE(run_on_gpu(gpu, cudnn, ConvCall::BackwardData, shape, zeros_x, w, g, out))
      << "backward data";
  const TensorData* data_in[] = {&g, &w};
  const ir::TensorMeta x_meta{c.x, dtype};
  EXPECT_TRUE(matches(out, ndarray::run(ir::Conv{transposed}, data_in, {&x_meta, 1}), tolerance,
                      data_terms))
      << "backward data";

  ASSERT_TRUE(run_on_gpu(gpu, cudnn, ConvCall::BackwardFilter, shape, x, zeros_w, g, out))
      << "backward filter";
  const TensorData* filter_in[] = {&x, &g};
  const ir::TensorMeta w_meta{c.w, dtype};
  EXPECT_TRUE(matches(out, ndarray::run(ir::ConvWeightGrad{geometry, c.w}, filter_in, {&w_meta, 1}),
                      tolerance, filter_terms))
      << "backward filter";
}

TEST(CudnnConvolutions, TakesEveryFormTheBackendSendsInEveryFloatDtypeAndMatchesNdarray) {
  std::string why;
  const std::shared_ptr<GpuContext> gpu = first_gpu(why);
  if (!gpu)
    GTEST_SKIP() << "no CUDA GPU on this machine (" << why
                 << "): the GPU cases run on a machine with one (docs/backends/cuda.md)";
  CudnnConvolutions cudnn(gpu);
  if (cudnn.describe().starts_with("no cuDNN"))
    GTEST_SKIP() << cudnn.describe() << ": convolutions run as column matrices";
  for (const ConvCase& c : conv_cases()) {
    for (const DType dtype : {DType::F64, DType::F32, DType::F16, DType::BF16})
      check_case(gpu, cudnn, c, dtype, false);
    check_case(gpu, cudnn, c, DType::F32, true);
  }
}

TEST(CudnnConvolutions, RefusesAnOutputCudnnDoesNotProduceAndIntegerDtypes) {
  std::string why;
  const std::shared_ptr<GpuContext> gpu = first_gpu(why);
  if (!gpu) GTEST_SKIP() << "no CUDA GPU on this machine (" << why << ")";
  CudnnConvolutions cudnn(gpu);
  if (cudnn.describe().starts_with("no cuDNN")) GTEST_SKIP() << cudnn.describe();
  const auto nothing = [](std::size_t) -> CUdeviceptr { return 0; };
  // A transposed convolution with output_padding 1 >= stride 1 (allowed: < dilation 2): its
  // output [1, 1, 6] is one longer than any cuDNN convolution to [1, 1, 3] makes.
  ConvShape shape{.dtype = DType::F32,
                  .x = {1, 1, 6},
                  .w = {1, 1, 2},
                  .y = {1, 1, 3},
                  .stride = {1},
                  .padding = {0},
                  .dilation = {2},
                  .groups = 1};
  EXPECT_FALSE(cudnn.run(ConvCall::BackwardData, shape, {0, 0, 0}, nothing, &why));
  EXPECT_NE(why.find("not the size"), std::string::npos) << why;
  shape.x = {1, 1, 5};
  shape.dtype = DType::I32;
  EXPECT_FALSE(cudnn.run(ConvCall::Forward, shape, {0, 0, 0}, nothing, &why));
  EXPECT_NE(why.find("i32"), std::string::npos) << why;
}

}  // namespace
}  // namespace ember::cuda
