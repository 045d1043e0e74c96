#include "backends/cuda/convolution.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "backends/cuda/cudnn_api.h"
#include "ember/error.h"

namespace ember::cuda {

#ifdef EMBER_WITH_CUDNN

// Named, not anonymous: CudnnConvolutions::State (of external linkage) holds these.
namespace cudnn_plans {

/// cuDNN's dims of a convolution: 4 (1-d and 2-d: a 1-d convolution is a 2-d one over a height
/// of 1, as cuDNN's Nd descriptors take no fewer than 4 dims) or 5 (3-d).
constexpr std::size_t kMaxCudnnDims = 5;

/// A ConvShape in cuDNN's int dims (the legacy API's sizes and strides are ints).
struct CudnnDims {
  int rank = 0;  // 4 or 5; the arrays' first rank (dims) or rank - 2 (spatial) entries count
  std::array<int, kMaxCudnnDims> x{};
  std::array<int, kMaxCudnnDims> w{};
  std::array<int, kMaxCudnnDims> y{};
  std::array<int, kMaxCudnnDims - 2> stride{};
  std::array<int, kMaxCudnnDims - 2> padding{};
  std::array<int, kMaxCudnnDims - 2> dilation{};
  int groups = 1;
  auto operator<=>(const CudnnDims&) const = default;
};

/// An algorithm chosen for a call and shape, with the math type it was chosen in (cuDNN runs an
/// algorithm in the math type of the descriptor it is given).
struct ConvPlan {
  int algorithm;
  cudnnMathType_t math;
  std::size_t workspace;
};

struct PlanKey {
  ConvCall call;
  DType dtype;
  bool tf32;
  CudnnDims dims;
  auto operator<=>(const PlanKey&) const = default;
};

}  // namespace cudnn_plans

namespace {

using cudnn_plans::ConvPlan;
using cudnn_plans::CudnnDims;
using cudnn_plans::kMaxCudnnDims;
using cudnn_plans::PlanKey;

/// The largest workspace an algorithm may ask for; the heuristic's next choice runs instead.
constexpr std::size_t kMaxConvWorkspace = std::size_t{1} << 30;

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (const int64_t d : dims)
    count *= d;
  return count;
}

/// s in cuDNN's dims; nullopt, with the reason in why, when it does not fit them: a size past
/// INT_MAX, or y not the size of the convolution of x (ember's transposed convolution allows an
/// output_padding up to the dilation, past the stride, which no cuDNN convolution produces).
std::optional<CudnnDims> cudnn_dims(const ConvShape& s, std::string& why) {
  const std::size_t rank = s.x.size();
  const std::size_t spatial = rank - 2;
  if (rank < 3 || rank > kMaxCudnnDims || s.w.size() != rank || s.y.size() != rank ||
      s.stride.size() != spatial || s.padding.size() != spatial || s.dilation.size() != spatial) {
    why = "cuDNN takes 1 to 3 spatial dims";
    return std::nullopt;
  }
  for (const std::vector<int64_t>* t : {&s.x, &s.w, &s.y}) {
    if (element_count(*t) > INT_MAX) {
      why = "a tensor of more than 2^31 - 1 elements (cuDNN's strides are ints)";
      return std::nullopt;
    }
  }
  for (std::size_t d = 0; d < spatial; ++d) {
    const int64_t reach = s.dilation[d] * (s.w[2 + d] - 1) + 1;
    if (s.y[2 + d] != (s.x[2 + d] + 2 * s.padding[d] - reach) / s.stride[d] + 1 ||
        s.padding[d] > INT_MAX || s.stride[d] > INT_MAX || s.dilation[d] > INT_MAX) {
      why = "the output is not the size of cuDNN's convolution of the input";
      return std::nullopt;
    }
  }
  CudnnDims c;
  const std::size_t added = rank == 3 ? 1 : 0;  // a height of 1 before a 1-d convolution's width
  c.rank = static_cast<int>(rank + added);
  c.groups = static_cast<int>(s.groups);
  for (std::size_t d = 0; d < rank + added; ++d) {
    const bool one = added == 1 && d == 2;
    const std::size_t from = d > 2 ? d - added : d;
    c.x[d] = one ? 1 : static_cast<int>(s.x[from]);
    c.w[d] = one ? 1 : static_cast<int>(s.w[from]);
    c.y[d] = one ? 1 : static_cast<int>(s.y[from]);
    if (d < 2) continue;
    c.stride[d - 2] = one ? 1 : static_cast<int>(s.stride[from - 2]);
    c.padding[d - 2] = one ? 0 : static_cast<int>(s.padding[from - 2]);
    c.dilation[d - 2] = one ? 1 : static_cast<int>(s.dilation[from - 2]);
  }
  return c;
}

/// How cuDNN computes a dtype.
struct ConvTypes {
  cudnnDataType_t data;
  cudnnDataType_t compute;
  cudnnMathType_t math;
  /// Full f32 or f64: the transform algorithms (FFT, Winograd) are left out, and f32 takes only
  /// algorithms in FMA math (no TF32).
  bool exact;
};

std::optional<ConvTypes> conv_types(DType dtype, bool tf32) {
  switch (dtype) {
    case DType::F64:
      return ConvTypes{CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, true};
    case DType::F32:
      // CUDNN_DEFAULT_MATH would let cuDNN round f32 to TF32 on Ampere and newer; FMA math
      // forbids tensor cores (and so TF32) outright.
      if (tf32) return ConvTypes{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, false};
      return ConvTypes{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, true};
    case DType::F16:
      return ConvTypes{CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, false};
    case DType::BF16:
      return ConvTypes{CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, false};
    default:
      return std::nullopt;
  }
}

/// Whether algorithm (of call) transforms its operands (FFT, Winograd) rather than multiplying
/// them as they are.
bool transforms(ConvCall call, int algorithm) {
  switch (call) {
    case ConvCall::Forward:
      return algorithm == CUDNN_CONVOLUTION_FWD_ALGO_FFT ||
             algorithm == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
             algorithm == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
             algorithm == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
    case ConvCall::BackwardData:
      return algorithm == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT ||
             algorithm == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
             algorithm == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
             algorithm == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
    case ConvCall::BackwardFilter:
      return algorithm == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT ||
             algorithm == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING ||
             algorithm == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
  }
  return true;
}

/// The descriptors of one shape, destroyed with it.
struct ConvDescriptors {
  const CudnnApi& api;
  cudnnTensorDescriptor_t x = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnTensorDescriptor_t y = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  explicit ConvDescriptors(const CudnnApi& a) : api(a) {}
  ~ConvDescriptors() {
    if (conv != nullptr) api.cudnnDestroyConvolutionDescriptor(conv);
    if (y != nullptr) api.cudnnDestroyTensorDescriptor(y);
    if (w != nullptr) api.cudnnDestroyFilterDescriptor(w);
    if (x != nullptr) api.cudnnDestroyTensorDescriptor(x);
  }
  ConvDescriptors(const ConvDescriptors&) = delete;
  ConvDescriptors& operator=(const ConvDescriptors&) = delete;
};

/// A failed cuDNN call: its name and status.
struct CudnnFailure {
  const char* call;
  cudnnStatus_t status;
};

std::string status_text(const CudnnApi& api, cudnnStatus_t status) {
  return std::string(api.cudnnGetErrorString(status)) + " (" +
         std::to_string(static_cast<int>(status)) + ")";
}

/// Whether status says cuDNN cannot do what was asked (rather than that something broke).
bool refuses(cudnnStatus_t status) {
  return CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED;
}

/// Packed strides of dims' first rank entries.
std::array<int, kMaxCudnnDims> packed_strides(const std::array<int, kMaxCudnnDims>& dims,
                                              int rank) {
  std::array<int, kMaxCudnnDims> strides{};
  int stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[static_cast<std::size_t>(d)] = stride;
    stride *= dims[static_cast<std::size_t>(d)];
  }
  return strides;
}

/// Fills d for dims in types; the first failing call, if any.
std::optional<CudnnFailure> describe_shape(ConvDescriptors& d, const CudnnDims& dims,
                                           const ConvTypes& types) {
  const CudnnApi& api = d.api;
  std::optional<CudnnFailure> failure;
  const auto step = [&](cudnnStatus_t status, const char* call) {
    if (!failure && status != CUDNN_STATUS_SUCCESS) failure = CudnnFailure{call, status};
    return !failure;
  };
  const auto tensor = [&](cudnnTensorDescriptor_t* out, const std::array<int, kMaxCudnnDims>& t) {
    const std::array<int, kMaxCudnnDims> strides = packed_strides(t, dims.rank);
    return step(api.cudnnCreateTensorDescriptor(out), "cudnnCreateTensorDescriptor") &&
           step(api.cudnnSetTensorNdDescriptor(*out, types.data, dims.rank, t.data(),
                                               strides.data()),
                "cudnnSetTensorNdDescriptor");
  };
  const int spatial = dims.rank - 2;
  (void)(tensor(&d.x, dims.x) && tensor(&d.y, dims.y) &&
         step(api.cudnnCreateFilterDescriptor(&d.w), "cudnnCreateFilterDescriptor") &&
         step(api.cudnnSetFilterNdDescriptor(d.w, types.data, CUDNN_TENSOR_NCHW, dims.rank,
                                             dims.w.data()),
              "cudnnSetFilterNdDescriptor") &&
         step(api.cudnnCreateConvolutionDescriptor(&d.conv), "cudnnCreateConvolutionDescriptor") &&
         step(api.cudnnSetConvolutionNdDescriptor(d.conv, spatial, dims.padding.data(),
                                                  dims.stride.data(), dims.dilation.data(),
                                                  CUDNN_CROSS_CORRELATION, types.compute),
              "cudnnSetConvolutionNdDescriptor") &&
         step(api.cudnnSetConvolutionGroupCount(d.conv, dims.groups),
              "cudnnSetConvolutionGroupCount") &&
         step(api.cudnnSetConvolutionMathType(d.conv, types.math), "cudnnSetConvolutionMathType"));
  return failure;
}

/// cuDNN's name of call, for messages.
const char* call_name(ConvCall call) {
  switch (call) {
    case ConvCall::Forward:
      return "forward";
    case ConvCall::BackwardData:
      return "backward data";
    case ConvCall::BackwardFilter:
      return "backward filter";
  }
  return "?";
}

/// The heuristic's choice for call: the first of its results (best first) that ran, in an
/// allowed math type, with a workspace within kMaxConvWorkspace, and (exact types) no transform;
/// or why there is none. count_of(&most) and results_of(most, &count, results) are the call's
/// cudnnGet*AlgorithmMaxCount and cudnnGet*Algorithm_v7 (whose result type, Perf, is the call's).
template <typename Perf, typename CountOf, typename ResultsOf>
std::variant<ConvPlan, std::string> ask_heuristic(const CudnnApi& api, ConvCall call,
                                                  const ConvTypes& types, const CountOf& count_of,
                                                  const ResultsOf& results_of) {
  const std::string asking = std::string("cuDNN's ") + call_name(call) + " heuristic: ";
  int most = 0;
  cudnnStatus_t status = count_of(&most);
  if (status != CUDNN_STATUS_SUCCESS) return asking + status_text(api, status);
  std::vector<Perf> results(static_cast<std::size_t>(most));
  int count = 0;
  status = results_of(most, &count, results.data());
  if (status != CUDNN_STATUS_SUCCESS) return asking + status_text(api, status);
  for (int i = 0; i < count; ++i) {
    const Perf& p = results[static_cast<std::size_t>(i)];
    if (p.status != CUDNN_STATUS_SUCCESS || p.memory > kMaxConvWorkspace) continue;
    // Down-conversion (f32 data computed in f16) is never asked for.
    if (p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) continue;
    if (types.exact && transforms(call, static_cast<int>(p.algo))) continue;
    if (types.exact && types.data == CUDNN_DATA_FLOAT) {
      // Full f32: never a tensor-core algorithm, and the descriptor keeps FMA math whatever
      // the result says, so that TF32 cannot come in (cuDNN refuses the call rather).
      if (p.mathType == CUDNN_TENSOR_OP_MATH) continue;
      return ConvPlan{static_cast<int>(p.algo), CUDNN_FMA_MATH, p.memory};
    }
    return ConvPlan{static_cast<int>(p.algo), p.mathType, p.memory};
  }
  return asking + "none of its " + std::to_string(count) +
         " algorithms fits (a transform or tensor cores in full f32 or f64, a workspace past " +
         std::to_string(kMaxConvWorkspace >> 20) + " MiB, or none runs)";
}

}  // namespace

struct CudnnConvolutions::State {
  std::shared_ptr<const GpuContext> gpu;
  const CudnnApi* api = nullptr;
  /// Why cuDNN does not serve this device (absent, or its handle failed); "" while it does.
  std::string absent;
  std::mutex mutex;  // guards everything below, and serializes the calls on handle
  cudnnHandle_t handle = nullptr;
  /// The plan of each call and shape, or why cuDNN refused it.
  std::map<cudnn_plans::PlanKey, std::variant<cudnn_plans::ConvPlan, std::string>> plans;

  /// The handle, made on the first call; false (absent says why) when it cannot be.
  bool ready() {
    if (handle != nullptr) return true;
    if (!absent.empty()) return false;
    gpu->make_current();
    cudnnStatus_t status = api->cudnnCreate(&handle);
    if (status != CUDNN_STATUS_SUCCESS) {
      handle = nullptr;
      absent = "cudnnCreate failed: " + status_text(*api, status);
      return false;
    }
    status = api->cudnnSetStream(handle, gpu->stream());
    if (status != CUDNN_STATUS_SUCCESS) {
      api->cudnnDestroy(handle);
      handle = nullptr;
      absent = "cudnnSetStream failed: " + status_text(*api, status);
      return false;
    }
    return true;
  }

  /// The heuristic's plan for call on d's shape, or why there is none.
  std::variant<ConvPlan, std::string> plan(ConvCall call, ConvDescriptors& d,
                                           const ConvTypes& types) {
    const auto failed = [&](cudnnStatus_t status, const char* name) -> std::string {
      return std::string(name) + ": " + status_text(*api, status);
    };
    std::variant<ConvPlan, std::string> asked;
    switch (call) {
      case ConvCall::Forward:
        asked = ask_heuristic<cudnnConvolutionFwdAlgoPerf_t>(
            *api, call, types,
            [&](int* most) {
              return api->cudnnGetConvolutionForwardAlgorithmMaxCount(handle, most);
            },
            [&](int most, int* count, cudnnConvolutionFwdAlgoPerf_t* results) {
              return api->cudnnGetConvolutionForwardAlgorithm_v7(handle, d.x, d.w, d.conv, d.y,
                                                                 most, count, results);
            });
        break;
      case ConvCall::BackwardData:
        asked = ask_heuristic<cudnnConvolutionBwdDataAlgoPerf_t>(
            *api, call, types,
            [&](int* most) {
              return api->cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, most);
            },
            [&](int most, int* count, cudnnConvolutionBwdDataAlgoPerf_t* results) {
              return api->cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, d.w, d.y, d.conv, d.x,
                                                                      most, count, results);
            });
        break;
      case ConvCall::BackwardFilter:
        asked = ask_heuristic<cudnnConvolutionBwdFilterAlgoPerf_t>(
            *api, call, types,
            [&](int* most) {
              return api->cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, most);
            },
            [&](int most, int* count, cudnnConvolutionBwdFilterAlgoPerf_t* results) {
              return api->cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, d.x, d.y, d.conv,
                                                                        d.w, most, count, results);
            });
        break;
    }
    if (std::holds_alternative<std::string>(asked)) return asked;
    ConvPlan& chosen = std::get<ConvPlan>(asked);
    cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
    // The workspace the algorithm needs in the math type it runs in.
    status = api->cudnnSetConvolutionMathType(d.conv, chosen.math);
    if (status != CUDNN_STATUS_SUCCESS) return failed(status, "cudnnSetConvolutionMathType");
    std::size_t bytes = 0;
    switch (call) {
      case ConvCall::Forward:
        status = api->cudnnGetConvolutionForwardWorkspaceSize(
            handle, d.x, d.w, d.conv, d.y, static_cast<cudnnConvolutionFwdAlgo_t>(chosen.algorithm),
            &bytes);
        break;
      case ConvCall::BackwardData:
        status = api->cudnnGetConvolutionBackwardDataWorkspaceSize(
            handle, d.w, d.y, d.conv, d.x,
            static_cast<cudnnConvolutionBwdDataAlgo_t>(chosen.algorithm), &bytes);
        break;
      case ConvCall::BackwardFilter:
        status = api->cudnnGetConvolutionBackwardFilterWorkspaceSize(
            handle, d.x, d.y, d.conv, d.w,
            static_cast<cudnnConvolutionBwdFilterAlgo_t>(chosen.algorithm), &bytes);
        break;
    }
    if (status != CUDNN_STATUS_SUCCESS) return failed(status, "cudnnGet*WorkspaceSize");
    chosen.workspace = std::max(chosen.workspace, bytes);
    return chosen;
  }

  /// Queues call with plan on d's shape; the status of the call.
  cudnnStatus_t launch(ConvCall call, const ConvPlan& plan, ConvDescriptors& d,
                       const ConvTypes& types, const ConvTensors& t, CUdeviceptr workspace) {
    const double one64 = 1.0;
    const double zero64 = 0.0;
    const float one32 = 1.0f;
    const float zero32 = 0.0f;
    // Scaling factors are doubles for double data, floats otherwise.
    const bool f64 = types.data == CUDNN_DATA_DOUBLE;
    const void* alpha = f64 ? static_cast<const void*>(&one64) : &one32;
    const void* beta = f64 ? static_cast<const void*>(&zero64) : &zero32;
    void* space = reinterpret_cast<void*>(workspace);
    const auto pointer = [](CUdeviceptr address) { return reinterpret_cast<void*>(address); };
    gpu->make_current();
    switch (call) {
      case ConvCall::Forward:
        return api->cudnnConvolutionForward(handle, alpha, d.x, pointer(t.x), d.w, pointer(t.w),
                                            d.conv,
                                            static_cast<cudnnConvolutionFwdAlgo_t>(plan.algorithm),
                                            space, plan.workspace, beta, d.y, pointer(t.y));
      case ConvCall::BackwardData:
        return api->cudnnConvolutionBackwardData(
            handle, alpha, d.w, pointer(t.w), d.y, pointer(t.y), d.conv,
            static_cast<cudnnConvolutionBwdDataAlgo_t>(plan.algorithm), space, plan.workspace, beta,
            d.x, pointer(t.x));
      case ConvCall::BackwardFilter:
        return api->cudnnConvolutionBackwardFilter(
            handle, alpha, d.x, pointer(t.x), d.y, pointer(t.y), d.conv,
            static_cast<cudnnConvolutionBwdFilterAlgo_t>(plan.algorithm), space, plan.workspace,
            beta, d.w, pointer(t.w));
    }
    return CUDNN_STATUS_BAD_PARAM;
  }
};

CudnnConvolutions::CudnnConvolutions(std::shared_ptr<const GpuContext> gpu)
    : state_(std::make_unique<State>()) {
  state_->gpu = std::move(gpu);
  state_->api = load_cudnn(&state_->absent);
}

// The handle is left to the process, never cudnnDestroy'ed: a device lives until the static
// destructors at exit, and the CUDA runtime inside cuDNN may be torn down before them (its exit
// handler is registered after the device was made, when the handle is), where cudnnDestroy may
// fail or crash. One handle per device and process is all it costs.
CudnnConvolutions::~CudnnConvolutions() = default;

std::string CudnnConvolutions::describe() const {
  if (state_->api == nullptr) return "no cuDNN (" + state_->absent + ")";
  return "cuDNN " + cudnn_version_text(state_->api->version);
}

bool CudnnConvolutions::run(ConvCall call, const ConvShape& shape, const ConvTensors& tensors,
                            const ConvWorkspace& workspace, std::string* why) {
  std::string reason;
  const auto refused = [&](std::string text) {
    if (why != nullptr) *why = std::move(text);
    return false;
  };
  State& s = *state_;
  if (s.api == nullptr) return refused("no cuDNN: " + s.absent);
  const std::optional<ConvTypes> types = conv_types(shape.dtype, shape.tf32);
  if (!types)
    return refused("cuDNN has no " + std::string(dtype_name(shape.dtype)) + " convolution");
  const std::optional<CudnnDims> dims = cudnn_dims(shape, reason);
  if (!dims) return refused(reason);

  const std::lock_guard lock(s.mutex);
  if (!s.ready()) return refused("no cuDNN: " + s.absent);
  ConvDescriptors d(*s.api);
  if (const std::optional<CudnnFailure> failure = describe_shape(d, *dims, *types))
    return refused(std::string(failure->call) + ": " + status_text(*s.api, failure->status));
  const PlanKey key{call, shape.dtype, shape.tf32 && shape.dtype == DType::F32, *dims};
  auto found = s.plans.find(key);
  if (found == s.plans.end()) found = s.plans.emplace(key, s.plan(call, d, *types)).first;
  if (const auto* text = std::get_if<std::string>(&found->second)) return refused(*text);
  const ConvPlan& plan = std::get<ConvPlan>(found->second);
  if (const cudnnStatus_t status = s.api->cudnnSetConvolutionMathType(d.conv, plan.math);
      status != CUDNN_STATUS_SUCCESS)
    return refused("cudnnSetConvolutionMathType: " + status_text(*s.api, status));
  const CUdeviceptr space = plan.workspace > 0 ? workspace(plan.workspace) : 0;
  const cudnnStatus_t status = s.launch(call, plan, d, *types, tensors, space);
  if (status == CUDNN_STATUS_SUCCESS) return true;
  // Refused at the call itself (nothing queued): kept, so the heuristic is not asked again.
  const std::string text = "the convolution call: " + status_text(*s.api, status);
  if (refuses(status)) {
    found->second = text;
    return refused(text);
  }
  throw ExecutionError("[" + s.gpu->name() + "] cuDNN convolution failed: " + text);
}

#else  // no cudnn.h at build time

struct CudnnConvolutions::State {
  std::string absent;
};

CudnnConvolutions::CudnnConvolutions(std::shared_ptr<const GpuContext> /*gpu*/)
    : state_(std::make_unique<State>()) {
  load_cudnn(&state_->absent);
}

CudnnConvolutions::~CudnnConvolutions() = default;

std::string CudnnConvolutions::describe() const {
  return "no cuDNN (" + state_->absent + ")";
}

bool CudnnConvolutions::run(ConvCall /*call*/, const ConvShape& /*shape*/,
                            const ConvTensors& /*tensors*/, const ConvWorkspace& /*workspace*/,
                            std::string* why) {
  if (why != nullptr) *why = "no cuDNN: " + state_->absent;
  return false;
}

#endif

}  // namespace ember::cuda
