#include "backends/cuda/matmul.h"

#include <string>

#include "ember/error.h"

namespace ember::cuda {
namespace {

struct Types {
  cudaDataType_t data;
  cublasComputeType_t compute;
  cudaDataType_t scale;
};

Types types_of(DType dtype, bool tf32) {
  switch (dtype) {
    case DType::F64:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F};
    case DType::F32:
      return {CUDA_R_32F, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case DType::F16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case DType::BF16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    default:
      break;
  }
  throw InvalidArgument("[matmul] cuBLASLt has no product of dtype " +
                        std::string(dtype_name(dtype)));
}

}  // namespace

/// The descriptors of one product, destroyed with it.
struct GemmDescriptors {
  const Api& api;
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t a = nullptr;
  cublasLtMatrixLayout_t b = nullptr;
  cublasLtMatrixLayout_t c = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  explicit GemmDescriptors(const Api& a) : api(a) {}
  ~GemmDescriptors() {
    if (preference != nullptr) api.cublasLtMatmulPreferenceDestroy(preference);
    if (c != nullptr) api.cublasLtMatrixLayoutDestroy(c);
    if (b != nullptr) api.cublasLtMatrixLayoutDestroy(b);
    if (a != nullptr) api.cublasLtMatrixLayoutDestroy(a);
    if (operation != nullptr) api.cublasLtMatmulDescDestroy(operation);
  }
};

struct GemmPlan {
  GemmProblem problem;
  GemmDescriptors d;
  cublasLtMatmulAlgo_t algorithm{};
  GemmPlan(const Api& api, const GemmProblem& p) : problem(p), d(api) {}
};

uint64_t gemm_form(const GemmProblem& p) {
  uint64_t hash = 0;
  for (const int64_t value :
       {static_cast<int64_t>(p.dtype), p.batch, p.m, p.n, p.k, p.a_batch_stride, p.b_batch_stride,
        static_cast<int64_t>(p.transpose_a | (p.transpose_b << 1) | (p.tf32 << 2))})
    hash = hash * 0x100000001b3ull ^ static_cast<uint64_t>(value);
  return hash;
}

Gemm::Gemm(std::shared_ptr<const GpuContext> gpu) : gpu_(std::move(gpu)) {
  gpu_->make_current();
  check(gpu_->api().cublasLtCreate(&handle_), "cublasLtCreate", gpu_->name());
}

Gemm::~Gemm() {
  gpu_->api().cublasLtDestroy(handle_);
}

bool Gemm::takes(DType dtype) {
  return is_float(dtype);
}

std::shared_ptr<const GemmPlan> Gemm::plan(const GemmProblem& p, std::size_t workspace_bytes) {
  const Api& api = gpu_->api();
  const std::string& device = gpu_->name();
  const Types types = types_of(p.dtype, p.tf32 && p.dtype == DType::F32);
  auto plan = std::make_shared<GemmPlan>(api, p);
  GemmDescriptors& d = plan->d;
  const auto checked = [&](cublasStatus_t status, const char* call) {
    check(status, call, device);
  };
  checked(api.cublasLtMatmulDescCreate(&d.operation, types.compute, types.scale),
          "cublasLtMatmulDescCreate");
  // Column-major: the product's "A" is the row-major b (n×k, leading dim n; stored n×k row-major
  // when transposed: k×n column-major, leading dim k, transposed back by the op), its "B" the
  // row-major a likewise, the result n×m with leading dim n.
  const auto set_transpose = [&](cublasLtMatmulDescAttributes_t attribute, bool transpose) {
    const cublasOperation_t operation = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
    checked(
        api.cublasLtMatmulDescSetAttribute(d.operation, attribute, &operation, sizeof operation),
        "cublasLtMatmulDescSetAttribute");
  };
  set_transpose(CUBLASLT_MATMUL_DESC_TRANSA, p.transpose_b);
  set_transpose(CUBLASLT_MATMUL_DESC_TRANSB, p.transpose_a);
  const auto layout = [&](cublasLtMatrixLayout_t* out, int64_t rows, int64_t cols, int64_t stride) {
    checked(api.cublasLtMatrixLayoutCreate(out, types.data, static_cast<uint64_t>(rows),
                                           static_cast<uint64_t>(cols), rows),
            "cublasLtMatrixLayoutCreate");
    if (p.batch == 1) return;
    const auto count = static_cast<int32_t>(p.batch);
    checked(api.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                                 sizeof count),
            "cublasLtMatrixLayoutSetAttribute");
    checked(api.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                 &stride, sizeof stride),
            "cublasLtMatrixLayoutSetAttribute");
  };
  if (p.transpose_b)
    layout(&d.a, p.k, p.n, p.b_batch_stride);
  else
    layout(&d.a, p.n, p.k, p.b_batch_stride);
  if (p.transpose_a)
    layout(&d.b, p.m, p.k, p.a_batch_stride);
  else
    layout(&d.b, p.k, p.m, p.a_batch_stride);
  layout(&d.c, p.n, p.m, p.m * p.n);

  const Key key{p.dtype,
                p.batch,
                p.m,
                p.n,
                p.k,
                p.a_batch_stride == 0,
                p.b_batch_stride == 0,
                p.transpose_a,
                p.transpose_b,
                p.tf32 && p.dtype == DType::F32};
  cublasLtMatmulAlgo_t algorithm{};
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = algorithms_.find(key); it != algorithms_.end()) {
      algorithm = it->second;
    } else {
      checked(api.cublasLtMatmulPreferenceCreate(&d.preference), "cublasLtMatmulPreferenceCreate");
      const uint64_t bytes = workspace_bytes;
      checked(api.cublasLtMatmulPreferenceSetAttribute(
                  d.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes),
              "cublasLtMatmulPreferenceSetAttribute");
      cublasLtMatmulHeuristicResult_t result{};
      int found = 0;
      checked(api.cublasLtMatmulAlgoGetHeuristic(handle_, d.operation, d.a, d.b, d.c, d.c,
                                                 d.preference, 1, &result, &found),
              "cublasLtMatmulAlgoGetHeuristic");
      if (found == 0)
        throw ExecutionError("[" + device + "] [matmul] cuBLASLt has no algorithm for " +
                             std::to_string(p.m) + "x" + std::to_string(p.k) + " @ " +
                             std::to_string(p.k) + "x" + std::to_string(p.n) + " in " +
                             std::string(dtype_name(p.dtype)));
      algorithm = result.algo;
      algorithms_.emplace(key, algorithm);
    }
  }
  plan->algorithm = algorithm;
  return plan;
}

void Gemm::run(const GemmPlan& plan, CUdeviceptr workspace, std::size_t workspace_bytes,
               CUstream stream) const {
  const Api& api = gpu_->api();
  const GemmProblem& p = plan.problem;
  const GemmDescriptors& d = plan.d;
  const double one64 = 1.0;
  const double zero64 = 0.0;
  const float one32 = 1.0f;
  const float zero32 = 0.0f;
  const bool f64 = p.dtype == DType::F64;
  const void* alpha = f64 ? static_cast<const void*>(&one64) : &one32;
  const void* beta = f64 ? static_cast<const void*>(&zero64) : &zero32;
  check(api.cublasLtMatmul(handle_, d.operation, alpha, reinterpret_cast<const void*>(p.b), d.a,
                           reinterpret_cast<const void*>(p.a), d.b, beta,
                           reinterpret_cast<const void*>(p.c), d.c, reinterpret_cast<void*>(p.c),
                           d.c, &plan.algorithm, reinterpret_cast<void*>(workspace),
                           workspace_bytes, stream),
        "cublasLtMatmul", gpu_->name());
}

}  // namespace ember::cuda
