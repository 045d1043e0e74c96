#include "backends/cuda/convolution.h"

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
/// of 1, as cuDNN's convolutions take no fewer than 4 dims) or 5 (3-d).
constexpr std::size_t kMaxCudnnDims = 5;

/// A ConvShape in cuDNN's dims.
struct CudnnDims {
  int rank = 0;  // 4 or 5; the arrays' first rank (dims) or rank - 2 (spatial) entries count
  std::array<int64_t, kMaxCudnnDims> x{};
  std::array<int64_t, kMaxCudnnDims> w{};
  std::array<int64_t, kMaxCudnnDims> y{};
  std::array<int64_t, kMaxCudnnDims - 2> stride{};
  std::array<int64_t, kMaxCudnnDims - 2> padding{};
  std::array<int64_t, kMaxCudnnDims - 2> dilation{};
  auto operator<=>(const CudnnDims&) const = default;
};

/// The backend descriptors of a plan, destroyed together (an execution plan refers to its engine
/// configuration, which refers to the operation graph and its tensors: all are kept).
class Descriptors {
 public:
  explicit Descriptors(const CudnnApi& api) : api_(&api) {}
  ~Descriptors() {
    for (auto d = made_.rbegin(); d != made_.rend(); ++d)
      api_->cudnnBackendDestroyDescriptor(*d);
  }
  Descriptors(Descriptors&& other) noexcept
      : api_(other.api_), made_(std::exchange(other.made_, {})) {}
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
  Descriptors& operator=(Descriptors&&) = delete;

  /// A new descriptor of type, owned here; the status of its creation.
  cudnnStatus_t make(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t* out) {
    *out = nullptr;
    const cudnnStatus_t status = api_->cudnnBackendCreateDescriptor(type, out);
    if (status == CUDNN_STATUS_SUCCESS) made_.push_back(*out);
    return status;
  }

 private:
  const CudnnApi* api_;
  std::vector<cudnnBackendDescriptor_t> made_;
};

/// An execution plan chosen for a call and shape, and the workspace it needs.
struct ConvPlan {
  Descriptors descriptors;
  cudnnBackendDescriptor_t plan = nullptr;
  std::size_t workspace = 0;
};

struct PlanKey {
  ConvCall call;
  DType dtype;
  bool tf32;
  /// The largest power of two up to 16 that every tensor's address is a multiple of: a plan
  /// assumes its tensors' alignment.
  int64_t alignment;
  CudnnDims dims;
  auto operator<=>(const PlanKey&) const = default;
};

}  // namespace cudnn_plans

namespace {

using cudnn_plans::ConvPlan;
using cudnn_plans::CudnnDims;
using cudnn_plans::Descriptors;
using cudnn_plans::kMaxCudnnDims;
using cudnn_plans::PlanKey;

/// The largest workspace a plan may ask for; the heuristic's next engine runs instead.
constexpr std::size_t kMaxConvWorkspace = std::size_t{1} << 30;

/// The tensors' unique ids in a convolution's graph.
enum TensorId : int64_t { kX = 1, kW = 2, kY = 3 };

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (const int64_t d : dims)
    count *= d;
  return count;
}

/// s in cuDNN's dims; nullopt, with the reason in why, when it does not fit them: a tensor past
/// INT_MAX elements (the legacy API's limit, kept: no larger tensor has been tried on an engine,
/// and the column path takes it), or y not the size of the convolution of x (ember's transposed
/// convolution allows an output_padding up to the dilation, past the stride, which no cuDNN
/// convolution produces).
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
      why = "a tensor of more than 2^31 - 1 elements";
      return std::nullopt;
    }
  }
  for (std::size_t d = 0; d < spatial; ++d) {
    const int64_t reach = s.dilation[d] * (s.w[2 + d] - 1) + 1;
    if (s.y[2 + d] != (s.x[2 + d] + 2 * s.padding[d] - reach) / s.stride[d] + 1) {
      why = "the output is not the size of cuDNN's convolution of the input";
      return std::nullopt;
    }
  }
  CudnnDims c;
  const std::size_t added = rank == 3 ? 1 : 0;  // a height of 1 before a 1-d convolution's width
  c.rank = static_cast<int>(rank + added);
  for (std::size_t d = 0; d < rank + added; ++d) {
    const bool one = added == 1 && d == 2;
    const std::size_t from = d > 2 ? d - added : d;
    c.x[d] = one ? 1 : s.x[from];
    c.w[d] = one ? 1 : s.w[from];
    c.y[d] = one ? 1 : s.y[from];
    if (d < 2) continue;
    c.stride[d - 2] = one ? 1 : s.stride[from - 2];
    c.padding[d - 2] = one ? 0 : s.padding[from - 2];
    c.dilation[d - 2] = one ? 1 : s.dilation[from - 2];
  }
  return c;
}

/// How cuDNN computes a dtype, and which engines' numerics it allows.
struct ConvTypes {
  cudnnDataType_t data;
  cudnnDataType_t compute;
  /// Engines on tensor cores: f16, bf16 and f64 (whose tensor cores compute in f64), and f32
  /// only where TF32 is allowed (tensor cores round f32 to TF32).
  bool tensor_cores;
  /// Engines that transform their operands (FFT, Winograd), which round more than the products
  /// do: not in full f32 or f64.
  bool transforms;
};

std::optional<ConvTypes> conv_types(DType dtype, bool tf32) {
  switch (dtype) {
    case DType::F64:
      return ConvTypes{CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, true, false};
    case DType::F32:
      return ConvTypes{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, tf32, tf32};
    case DType::F16:
      return ConvTypes{CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, true, true};
    case DType::BF16:
      return ConvTypes{CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, true, true};
    default:
      return std::nullopt;
  }
}

/// Whether an engine of numerical notes computes as types allow. Never an engine that converts
/// its inputs to a narrower type or reduces in less than the compute type.
bool allowed(const std::vector<cudnnBackendNumericalNote_t>& notes, const ConvTypes& types) {
  for (const cudnnBackendNumericalNote_t note : notes) {
    switch (note) {
      case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS:
      case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION:
        return false;
      case CUDNN_NUMERICAL_NOTE_TENSOR_CORE:
        if (!types.tensor_cores) return false;
        break;
      case CUDNN_NUMERICAL_NOTE_FFT:
      case CUDNN_NUMERICAL_NOTE_WINOGRAD:
      case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4:
      case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6:
      case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13:
        if (!types.transforms) return false;
        break;
      case CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC:
      case CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP:
      case CUDNN_NUMERICAL_NOTE_TYPE_COUNT:
        break;
    }
  }
  return true;
}

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

/// Packed strides of dims' first rank entries.
std::array<int64_t, kMaxCudnnDims> packed_strides(const std::array<int64_t, kMaxCudnnDims>& dims,
                                                  int rank) {
  std::array<int64_t, kMaxCudnnDims> strides{};
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[static_cast<std::size_t>(d)] = stride;
    stride *= dims[static_cast<std::size_t>(d)];
  }
  return strides;
}

/// Builds a convolution's operation graph and its plan into descriptors, keeping the first
/// failing call.
class GraphBuilder {
 public:
  GraphBuilder(const CudnnApi& api, Descriptors& descriptors)
      : api_(api), descriptors_(descriptors) {}

  const std::optional<CudnnFailure>& failure() const { return failure_; }

  /// A new descriptor of type with attributes set by fill, finalized; nullptr after a failure.
  template <typename Fill>
  cudnnBackendDescriptor_t finalized(cudnnBackendDescriptorType_t type, const Fill& fill) {
    if (failure_) return nullptr;
    cudnnBackendDescriptor_t d = nullptr;
    if (!step(descriptors_.make(type, &d), "cudnnBackendCreateDescriptor")) return nullptr;
    fill(d);
    if (failure_ || !step(api_.cudnnBackendFinalize(d), "cudnnBackendFinalize")) return nullptr;
    return d;
  }

  /// Sets attribute of d to count values of cuDNN's type.
  template <typename T>
  void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t attribute,
           cudnnBackendAttributeType_t type, int64_t count, const T* values) {
    if (failure_) return;
    step(api_.cudnnBackendSetAttribute(d, attribute, type, count, values),
         "cudnnBackendSetAttribute");
  }

  /// A packed tensor of dims and id.
  cudnnBackendDescriptor_t tensor(const std::array<int64_t, kMaxCudnnDims>& dims, int rank,
                                  TensorId id, cudnnDataType_t data, int64_t alignment) {
    const std::array<int64_t, kMaxCudnnDims> strides = packed_strides(dims, rank);
    const int64_t uid = id;
    return finalized(CUDNN_BACKEND_TENSOR_DESCRIPTOR, [&](cudnnBackendDescriptor_t d) {
      set(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &data);
      set(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, rank, dims.data());
      set(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, rank, strides.data());
      set(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
      set(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
    });
  }

 private:
  bool step(cudnnStatus_t status, const char* call) {
    if (!failure_ && status != CUDNN_STATUS_SUCCESS) failure_ = CudnnFailure{call, status};
    return !failure_;
  }

  const CudnnApi& api_;
  Descriptors& descriptors_;
  std::optional<CudnnFailure> failure_;
};

/// The attributes of call's operation: its three tensors, convolution, alpha and beta.
struct OperationAttributes {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
};

OperationAttributes operation_attributes(ConvCall call) {
  switch (call) {
    case ConvCall::Forward:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
    case ConvCall::BackwardData:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
    case ConvCall::BackwardFilter:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA};
  }
  return {};
}

/// The finalized operation graph of call on dims in types, on handle; nullptr on a failure.
cudnnBackendDescriptor_t operation_graph(GraphBuilder& b, cudnnHandle_t handle, ConvCall call,
                                         const CudnnDims& dims, const ConvTypes& types,
                                         int64_t alignment) {
  const int rank = dims.rank;
  cudnnBackendDescriptor_t x = b.tensor(dims.x, rank, kX, types.data, alignment);
  cudnnBackendDescriptor_t w = b.tensor(dims.w, rank, kW, types.data, alignment);
  cudnnBackendDescriptor_t y = b.tensor(dims.y, rank, kY, types.data, alignment);
  const int64_t spatial = rank - 2;
  cudnnBackendDescriptor_t conv =
      b.finalized(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, [&](cudnnBackendDescriptor_t d) {
        const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
        b.set(d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &types.compute);
        b.set(d, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
        b.set(d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
        b.set(d, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, spatial, dims.dilation.data());
        b.set(d, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, spatial,
              dims.stride.data());
        b.set(d, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, spatial,
              dims.padding.data());
        b.set(d, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, spatial,
              dims.padding.data());
      });
  const OperationAttributes a = operation_attributes(call);
  // Scaling factors are doubles for double data, floats otherwise.
  const double one64 = 1.0, zero64 = 0.0;
  const float one32 = 1.0f, zero32 = 0.0f;
  const bool f64 = types.data == CUDNN_DATA_DOUBLE;
  cudnnBackendDescriptor_t operation = b.finalized(a.type, [&](cudnnBackendDescriptor_t d) {
    b.set(d, a.x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    b.set(d, a.w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
    b.set(d, a.y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    b.set(d, a.conv, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    if (f64) {
      b.set(d, a.alpha, CUDNN_TYPE_DOUBLE, 1, &one64);
      b.set(d, a.beta, CUDNN_TYPE_DOUBLE, 1, &zero64);
    } else {
      b.set(d, a.alpha, CUDNN_TYPE_FLOAT, 1, &one32);
      b.set(d, a.beta, CUDNN_TYPE_FLOAT, 1, &zero32);
    }
  });
  return b.finalized(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, [&](cudnnBackendDescriptor_t d) {
    b.set(d, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &operation);
    b.set(d, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  });
}

/// The numerical notes of an engine configuration's engine; nullopt if cuDNN does not say.
std::optional<std::vector<cudnnBackendNumericalNote_t>> numerical_notes(
    const CudnnApi& api, Descriptors& descriptors, cudnnBackendDescriptor_t config) {
  cudnnBackendDescriptor_t engine = nullptr;
  if (descriptors.make(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine) != CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  int64_t count = 0;
  if (api.cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count,
                                   &engine) != CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  std::vector<cudnnBackendNumericalNote_t> notes(CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
  if (api.cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                   CUDNN_TYPE_NUMERICAL_NOTE, static_cast<int64_t>(notes.size()),
                                   &count, notes.data()) != CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  notes.resize(static_cast<std::size_t>(count));
  return notes;
}

/// The engine configurations of graph that cuDNN's heuristic in mode suggests, best first.
std::vector<cudnnBackendDescriptor_t> suggested_configs(const CudnnApi& api,
                                                        Descriptors& descriptors,
                                                        cudnnBackendDescriptor_t graph,
                                                        cudnnBackendHeurMode_t mode) {
  GraphBuilder b(api, descriptors);
  cudnnBackendDescriptor_t heuristic =
      b.finalized(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, [&](cudnnBackendDescriptor_t d) {
        b.set(d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
        b.set(d, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
      });
  int64_t count = 0;
  if (heuristic == nullptr || api.cudnnBackendGetAttribute(heuristic, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                                           nullptr) != CUDNN_STATUS_SUCCESS)
    return {};
  std::vector<cudnnBackendDescriptor_t> configs(static_cast<std::size_t>(count));
  for (cudnnBackendDescriptor_t& config : configs)
    if (descriptors.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &config) != CUDNN_STATUS_SUCCESS)
      return {};
  if (api.cudnnBackendGetAttribute(heuristic, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count,
                                   configs.data()) != CUDNN_STATUS_SUCCESS)
    return {};
  configs.resize(static_cast<std::size_t>(count));
  return configs;
}

/// The execution plan of config on handle with its workspace, if it finalizes and its workspace
/// is within kMaxConvWorkspace.
std::optional<std::pair<cudnnBackendDescriptor_t, std::size_t>> execution_plan(
    const CudnnApi& api, Descriptors& descriptors, cudnnHandle_t handle,
    cudnnBackendDescriptor_t config) {
  GraphBuilder b(api, descriptors);
  cudnnBackendDescriptor_t plan =
      b.finalized(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, [&](cudnnBackendDescriptor_t d) {
        b.set(d, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
        b.set(d, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
              &config);
      });
  int64_t workspace = 0;
  int64_t count = 0;
  if (plan == nullptr ||
      api.cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64,
                                   1, &count, &workspace) != CUDNN_STATUS_SUCCESS ||
      static_cast<std::size_t>(workspace) > kMaxConvWorkspace)
    return std::nullopt;
  return std::pair{plan, static_cast<std::size_t>(workspace)};
}

/// The plan of call on dims: of the engines cuDNN's heuristic suggests (its instant mode first,
/// as PyTorch's, then its fallback list), the first that types allow and that builds; or why
/// there is none.
std::variant<ConvPlan, std::string> choose_plan(const CudnnApi& api, cudnnHandle_t handle,
                                                ConvCall call, const CudnnDims& dims,
                                                const ConvTypes& types, int64_t alignment) {
  const std::string asking = std::string("cuDNN's ") + call_name(call) + " convolution: ";
  ConvPlan chosen{Descriptors(api)};
  GraphBuilder b(api, chosen.descriptors);
  const cudnnBackendDescriptor_t graph = operation_graph(b, handle, call, dims, types, alignment);
  if (graph == nullptr)
    return asking + b.failure()->call + ": " + status_text(api, b.failure()->status);
  std::size_t suggested = 0;
  for (const cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_FALLBACK}) {
    for (const cudnnBackendDescriptor_t config :
         suggested_configs(api, chosen.descriptors, graph, mode)) {
      ++suggested;
      const auto notes = numerical_notes(api, chosen.descriptors, config);
      if (!notes || !allowed(*notes, types)) continue;
      if (const auto plan = execution_plan(api, chosen.descriptors, handle, config)) {
        chosen.plan = plan->first;
        chosen.workspace = plan->second;
        return chosen;
      }
    }
  }
  return asking + "none of the " + std::to_string(suggested) +
         " engines its heuristics suggest fits (tensor cores or a transform in full f32, a "
         "transform in f64, narrower inputs or sums, a workspace past " +
         std::to_string(kMaxConvWorkspace >> 20) + " MiB, or none builds)";
}

/// The largest power of two up to 16 that every address in tensors is a multiple of.
int64_t alignment_of(const ConvTensors& tensors) {
  const CUdeviceptr any = tensors.x | tensors.w | tensors.y | CUdeviceptr{16};
  return static_cast<int64_t>(any & ~(any - 1));
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

  /// Queues plan on t with workspace; the status of the first failing call.
  cudnnStatus_t launch(const ConvPlan& plan, const ConvTensors& t, CUdeviceptr workspace) {
    Descriptors owner(*api);  // the variant pack, freed once the call is queued
    cudnnBackendDescriptor_t pack = nullptr;
    cudnnStatus_t status = owner.make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack);
    const std::array<void*, 3> pointers = {
        reinterpret_cast<void*>(t.x), reinterpret_cast<void*>(t.w), reinterpret_cast<void*>(t.y)};
    const std::array<int64_t, 3> ids = {kX, kW, kY};
    void* space = reinterpret_cast<void*>(workspace);
    const auto set = [&](cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                         int64_t count, const void* values) {
      if (status == CUDNN_STATUS_SUCCESS)
        status = api->cudnnBackendSetAttribute(pack, name, type, count, values);
    };
    set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers.data());
    set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, ids.data());
    set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &space);
    if (status == CUDNN_STATUS_SUCCESS) status = api->cudnnBackendFinalize(pack);
    if (status != CUDNN_STATUS_SUCCESS) return status;
    gpu->make_current();
    return api->cudnnBackendExecute(handle, plan.plan, pack);
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
// fail or crash. One handle per device and process is all it costs. The plans' descriptors are
// host memory, freed with the device.
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
  const int64_t alignment = alignment_of(tensors);
  const PlanKey key{call, shape.dtype, shape.tf32 && shape.dtype == DType::F32, alignment, *dims};
  auto found = s.plans.find(key);
  if (found == s.plans.end()) {
    s.gpu->make_current();
    found =
        s.plans.emplace(key, choose_plan(*s.api, s.handle, call, *dims, *types, alignment)).first;
  }
  if (const auto* text = std::get_if<std::string>(&found->second)) return refused(*text);
  const ConvPlan& plan = std::get<ConvPlan>(found->second);
  const CUdeviceptr space = plan.workspace > 0 ? workspace(plan.workspace) : 0;
  const cudnnStatus_t status = s.launch(plan, tensors, space);
  if (status == CUDNN_STATUS_SUCCESS) return true;
  // Refused at the call itself (nothing queued): kept, so the heuristic is not asked again.
  const std::string text = "the convolution call: " + status_text(*s.api, status);
  if (refuses(status)) {
    found->second.emplace<std::string>(text);
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
