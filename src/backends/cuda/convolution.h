// Convolutions through cuDNN's graph API (libcudnn.so.9, opened at run time: cudnn_api.h), on the
// device's one stream. The cuda backend maps ember's ops onto its three convolution operations,
// and runs its own column path (im2col and cuBLASLt) wherever cuDNN is absent or refuses. f32 runs
// in full f32 unless TF32 is allowed, f64 in f64, f16 and bf16 with f32 accumulation. The plan of
// each call and shape is built once and kept: the first engine cuDNN's heuristics suggest whose
// numerical notes the dtype allows (in full f32 and f64 no FFT or Winograd, whose transforms round
// more than the column path's products; in f32 no tensor cores unless TF32 is allowed).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/gpu_context.h"
#include "ember/dtype.h"

namespace ember::cuda {

/// cuDNN's three calls on its convolution y = conv(x, w) (a cross-correlation): Forward computes
/// y from x and w; BackwardData x from y and w (ember's transposed convolution, and so every
/// input gradient); BackwardFilter w from x and y (every weight gradient).
enum class ConvCall : uint8_t { Forward, BackwardData, BackwardFilter };

/// The convolution y = conv(x, w) in cuDNN's terms, whichever call computes which tensor:
/// x [N, C, *in], w [K, C / groups, *kernel], y [N, K, *out], 1 to 3 spatial dims, every tensor
/// contiguous; out = floor((in + 2 padding - dilation (kernel - 1) - 1) / stride) + 1.
struct ConvShape {
  DType dtype;
  std::vector<int64_t> x;
  std::vector<int64_t> w;
  std::vector<int64_t> y;
  std::vector<int64_t> stride;    ///< one per spatial dim
  std::vector<int64_t> padding;   ///< one per spatial dim, on both sides
  std::vector<int64_t> dilation;  ///< one per spatial dim
  int64_t groups = 1;
  /// F32 only: the products may round their inputs to TF32 (MatmulPrecision::High).
  bool tf32 = false;
};

/// The device addresses of x, w and y: a call reads two of them and overwrites the third.
struct ConvTensors {
  CUdeviceptr x;
  CUdeviceptr w;
  CUdeviceptr y;
};

/// Device memory of at least bytes for cuDNN's workspace, kept by the caller until the call is
/// queued (the pools hand a freed block only to work queued after it).
using ConvWorkspace = std::function<CUdeviceptr(std::size_t bytes)>;

class CudnnConvolutions {
 public:
  /// Opens cuDNN (load_cudnn); its handle is created by the first call, so a program that never
  /// convolves costs cuDNN nothing on the GPU.
  explicit CudnnConvolutions(std::shared_ptr<const GpuContext> gpu);
  /// Leaves cuDNN's handle to the process (convolution.cpp says why).
  ~CudnnConvolutions();
  CudnnConvolutions(const CudnnConvolutions&) = delete;
  CudnnConvolutions& operator=(const CudnnConvolutions&) = delete;

  /// "cuDNN 9.19.0", or "no cuDNN (<why>)".
  std::string describe() const;

  /// Queues call on the device's stream and returns true. Returns false, with nothing queued and
  /// the reason in *why when given, where cuDNN is absent, its handle cannot be made, or it
  /// refuses the shape or dtype (a refusal is kept: the heuristic is not asked again); the
  /// caller then runs its own path. Throws ExecutionError when a queued call fails otherwise.
  /// Thread-safe (calls on one device are serialized: they share its stream anyway).
  bool run(ConvCall call, const ConvShape& shape, const ConvTensors& tensors,
           const ConvWorkspace& workspace, std::string* why = nullptr);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ember::cuda
