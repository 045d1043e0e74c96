// Matmul through cuBLASLt: row-major products C[m, n] = A[m, k] B[k, n], batched with a stride,
// computed as cuBLASLt's column-major C^T = B^T A^T (no transposes: a row-major matrix is the
// column-major transpose). f32 runs in full f32 (never TF32), f64 in f64, f16 and bf16 with f32
// accumulation. The algorithm of each problem is asked of cuBLASLt's heuristic once and kept.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "backends/cuda/gpu_context.h"
#include "ember/dtype.h"

namespace ember::cuda {

/// One (batched) product: batch products of op(a) (m×k) by op(b) (k×n), each operand's matrices
/// batch_stride elements apart (0: one matrix for every batch entry). op transposes an operand
/// stored the other way (a as k×m, b as n×k, row-major) where transpose_a / transpose_b say so.
struct GemmProblem {
  DType dtype;
  int64_t batch;
  int64_t m;
  int64_t n;
  int64_t k;
  CUdeviceptr a;
  int64_t a_batch_stride;
  CUdeviceptr b;
  int64_t b_batch_stride;
  CUdeviceptr c;
  bool transpose_a = false;
  bool transpose_b = false;
  /// F32 only: the inputs may be rounded to TF32 (MatmulPrecision::High).
  bool tf32 = false;
};

/// A problem's cuBLASLt descriptors and algorithm: made when the op is called (cuBLASLt's refusal
/// is the op's error), used when the product is issued (LaunchQueue).
struct GemmPlan;

/// What a graph of the product depends on besides its addresses (dtype, sizes, strides,
/// transposes, TF32), hashed.
uint64_t gemm_form(const GemmProblem& problem);

class Gemm {
 public:
  explicit Gemm(std::shared_ptr<const GpuContext> gpu);
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  /// Whether run takes dtype: F64, F32, F16, BF16.
  static bool takes(DType dtype);
  /// The descriptors and algorithm of problem for a workspace of workspace_bytes; throws
  /// ExecutionError when cuBLASLt has no algorithm for it.
  std::shared_ptr<const GemmPlan> plan(const GemmProblem& problem, std::size_t workspace_bytes);
  /// Issues plan's product on stream; workspace is workspace_bytes of device memory.
  void run(const GemmPlan& plan, CUdeviceptr workspace, std::size_t workspace_bytes,
           CUstream stream) const;

 private:
  using Key = std::tuple<DType, int64_t, int64_t, int64_t, int64_t, bool, bool, bool, bool, bool>;
  std::shared_ptr<const GpuContext> gpu_;
  cublasLtHandle_t handle_ = nullptr;
  std::mutex mutex_;  // guards algorithms_
  std::map<Key, cublasLtMatmulAlgo_t> algorithms_;
};

}  // namespace ember::cuda
