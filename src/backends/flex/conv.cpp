// Convolutions: f32 through oneDNN where the build has it (dnnl_conv.h), otherwise, and for f64,
// as GEMM (im2col): per sample and group, the columns of the large side (conv_columns.h) times
// the group's weight matrix; f16 and bf16 through oneDNN where it runs them natively, else
// through the f32 path. Other dtypes and empty tensors fall back to ndarray.
//
//   conv:                 out_g [Cout_g, O]      = W_g [Cout_g, Cin_g K] cols(x_g) [Cin_g K, O]
//   transposed conv:      cols [Cout_g K, I]     = W_g^T x_g [Cin_g, I], added into out_g
//   weight grad:          dW_g [Cout_g, Cin_g K] = sum_n dY_g [Cout_g, O] cols(x_g)^T
//   transposed weight grad: dW_g [Cin_g, Cout_g K] = sum_n x_g [Cin_g, I] cols(dY_g)^T
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/flex/blas.h"
#include "backends/flex/conv_columns.h"
#include "backends/flex/convert.h"
#include "backends/flex/copy.h"
#include "backends/flex/dnnl_conv.h"
#include "backends/flex/kernels.h"

namespace ember::flex {
namespace {

/// The extents of a convolution: x [N, C_in, *in], output [N, C_out, *out].
struct ConvExtents {
  int64_t batch = 0;
  int64_t groups = 1;
  int64_t in_per_group = 0;   ///< channels of x per group
  int64_t out_per_group = 0;  ///< channels of the output per group
  int64_t in_volume = 1;
  int64_t out_volume = 1;
  Windows windows;  ///< large side: x (conv) or the output (transposed)

  int64_t kernel_volume() const { return windows.kernel_volume(); }
};

ConvExtents conv_extents(const ir::ConvGeometry& g, const Shape& x, const Shape& out,
                         const Shape& weight) {
  ConvExtents e;
  e.batch = x[0];
  e.groups = g.groups;
  e.in_per_group = x[1] / g.groups;
  e.out_per_group = out[1] / g.groups;
  const std::size_t spatial = x.rank() - 2;
  const std::size_t skipped = 3 - spatial;  // leading window dims of size 1
  for (std::size_t d = 0; d < spatial; ++d) {
    WindowDim& w = e.windows.dims[skipped + d];
    const int64_t in = x[2 + d];
    const int64_t o = out[2 + d];
    w.large = g.transposed ? o : in;
    w.small = g.transposed ? in : o;
    w.kernel = weight[2 + d];
    w.stride = g.stride[d];
    w.padding = g.padding[d];
    w.dilation = g.dilation[d];
    e.in_volume *= in;
    e.out_volume *= o;
  }
  return e;
}

/// A row-major matrix read by BLAS as it is (transposed = false) or transposed.
template <typename T>
BlasMatrix<T> matrix(const T* data, int64_t ld, bool transposed = false) {
  return {data, ld, transposed};
}

/// The columns of one group's channels of one tensor, or the tensor itself when the windows
/// make them identical (then nothing is copied).
template <typename T>
class Columns {
 public:
  Columns(const Windows& w, int64_t channels)
      : windows_(w),
        buffer_(w.is_identity()
                    ? 0
                    : static_cast<std::size_t>(channels * w.kernel_volume() * w.small_volume())),
        channels_(channels) {}

  const T* of(const T* image) {
    if (buffer_.empty()) return image;
    image_to_columns(windows_, image, channels_, buffer_.data());
    return buffer_.data();
  }

 private:
  const Windows& windows_;
  std::vector<T> buffer_;
  int64_t channels_;
};

/// Every row of out [channels, volume] set to its channel's bias.
template <typename T>
void fill_rows(T* out, const T* bias, int64_t channels, int64_t volume) {
  for (int64_t c = 0; c < channels; ++c)
    std::fill(out + c * volume, out + (c + 1) * volume, bias[c]);
}

template <typename T>
void convolve(const ConvExtents& e, const T* x, const T* weight, const T* bias, T* out) {
  const int64_t cin = e.in_per_group;
  const int64_t cout = e.out_per_group;
  const int64_t reduce = cin * e.kernel_volume();
  Columns<T> columns(e.windows, cin);
  for (int64_t n = 0; n < e.batch; ++n) {
    for (int64_t g = 0; g < e.groups; ++g) {
      const T* x_g = x + (n * e.groups + g) * cin * e.in_volume;
      T* out_g = out + (n * e.groups + g) * cout * e.out_volume;
      if (bias) fill_rows(out_g, bias + g * cout, cout, e.out_volume);
      gemm(cout, e.out_volume, reduce, matrix(weight + g * cout * reduce, reduce),
           matrix(columns.of(x_g), e.out_volume), bias ? T{1} : T{0}, out_g, e.out_volume);
    }
  }
}

template <typename T>
void convolve_transposed(const ConvExtents& e, const T* x, const T* weight, const T* bias, T* out) {
  const int64_t cin = e.in_per_group;
  const int64_t cout = e.out_per_group;
  const int64_t spread = cout * e.kernel_volume();
  const bool identity = e.windows.is_identity();
  std::vector<T> columns(identity ? 0 : static_cast<std::size_t>(spread * e.in_volume));
  for (int64_t n = 0; n < e.batch; ++n) {
    for (int64_t g = 0; g < e.groups; ++g) {
      const T* x_g = x + (n * e.groups + g) * cin * e.in_volume;
      T* out_g = out + (n * e.groups + g) * cout * e.out_volume;
      if (bias) {
        fill_rows(out_g, bias + g * cout, cout, e.out_volume);
      } else {
        std::fill(out_g, out_g + cout * e.out_volume, T{0});
      }
      T* product = identity ? out_g : columns.data();
      gemm(spread, e.in_volume, cin, matrix(weight + g * cin * spread, spread, true),
           matrix(x_g, e.in_volume), identity ? T{1} : T{0}, product, e.in_volume);
      if (!identity) add_columns_to_image(e.windows, columns.data(), cout, out_g);
    }
  }
}

/// Weight gradient of either direction: per group, dW_g = sum_n left_n cols(right_n)^T, where
/// (left, right) is (grad_output, x) for a convolution and (x, grad_output) for a transposed one;
/// left's spatial volume is the windows' small side.
template <typename T>
void weight_gradient(const ConvExtents& e, const T* left, int64_t left_channels, const T* right,
                     int64_t right_channels, int64_t right_volume, T* grad) {
  const int64_t width = right_channels * e.kernel_volume();
  const int64_t positions = e.windows.small_volume();
  Columns<T> columns(e.windows, right_channels);
  for (int64_t g = 0; g < e.groups; ++g) {
    T* grad_g = grad + g * left_channels * width;
    for (int64_t n = 0; n < e.batch; ++n) {
      const T* left_g = left + (n * e.groups + g) * left_channels * positions;
      const T* right_g = right + (n * e.groups + g) * right_channels * right_volume;
      gemm(left_channels, width, positions, matrix(left_g, positions),
           matrix(columns.of(right_g), positions, true), n == 0 ? T{0} : T{1}, grad_g, width);
    }
  }
}

/// Whether something is computed on every side (else ndarray's loops take the case).
bool nonempty(Views in, const ir::TensorMeta& out) {
  if (out.shape.num_elements() == 0) return false;
  for (const View& v : in) {
    if (v.num_elements() == 0) return false;
  }
  return true;
}

/// Whether the f32/f64 path applies: one of those dtypes, and something to compute.
bool has_fast_path(Views in, const ir::TensorMeta& out) {
  return (in[0].dtype == DType::F32 || in[0].dtype == DType::F64) && nonempty(in, out);
}

/// Conv on flex's contiguous copies of in through oneDNN; nullopt where it declines.
std::optional<View> convolve_in_dnnl(const ir::Conv& op, Views in, const ir::TensorMeta& out) {
  const View x = contiguous(in[0]);
  const View weight = contiguous(in[1]);
  const std::optional<View> bias =
      in.size() > 2 ? std::optional<View>(contiguous(in[2])) : std::nullopt;
  OutputTensor result(out);
  if (!dnnl_convolve(op.geometry, x, weight, bias ? &*bias : nullptr, result.bytes(), out.shape))
    return std::nullopt;
  return result.view();
}

/// ConvWeightGrad through oneDNN, as convolve_in_dnnl.
std::optional<View> weight_gradient_in_dnnl(const ir::ConvWeightGrad& op, Views in,
                                            const ir::TensorMeta& out) {
  OutputTensor result(out);
  if (!dnnl_weight_gradient(op.geometry, contiguous(in[0]), contiguous(in[1]), result.bytes(),
                            op.weight_shape))
    return std::nullopt;
  return result.view();
}

/// op on f16 or bf16 inputs computed in f32 and rounded once, as matmul.cpp and ndarray do: the
/// f32 path (oneDNN, or im2col + BLAS) instead of ndarray's plain loops, which made an f16/bf16
/// convolution (an autocast device's) a hundred times slower than an f32 one. nullopt for other
/// dtypes.
template <typename Op>
std::optional<View> run_reduced_in_f32(const Op& op, Views in, Outputs out) {
  const DType dtype = in[0].dtype;
  if (dtype != DType::F16 && dtype != DType::BF16) return std::nullopt;
  std::vector<View> wide;
  wide.reserve(in.size());
  for (const View& v : in)
    wide.push_back(converted(v, DType::F32));
  std::vector<const View*> pointers;
  for (const View& v : wide)
    pointers.push_back(&v);
  const ir::TensorMeta meta{out[0].shape, DType::F32};
  const std::optional<View> result = run(op, Views(pointers), Outputs(&meta, 1));
  return result ? std::optional<View>(converted(*result, dtype)) : std::nullopt;
}

/// Calls body.operator()<T>() with T the element type of dtype (f32 or f64).
template <typename Body>
void visit_gemm_dtype(DType dtype, Body&& body) {
  if (dtype == DType::F64) {
    body.template operator()<double>();
  } else {
    body.template operator()<float>();
  }
}

}  // namespace

std::optional<View> run(const ir::Conv& op, Views in, Outputs out) {
  if (dnnl_conv_takes(in[0].dtype) && nonempty(in, out[0])) {
    if (std::optional<View> done = convolve_in_dnnl(op, in, out[0])) return done;
  }
  if (!has_fast_path(in, out[0])) return run_reduced_in_f32(op, in, out);
  const View x = contiguous(in[0]);
  const View weight = contiguous(in[1]);
  const std::optional<View> bias =
      in.size() > 2 ? std::optional<View>(contiguous(in[2])) : std::nullopt;
  OutputTensor result(out[0]);
  const ConvExtents e = conv_extents(op.geometry, x.shape, out[0].shape, weight.shape);
  visit_gemm_dtype(x.dtype, [&]<typename T>() {
    const T* bias_data = bias ? bias->data<T>() : nullptr;
    if (op.geometry.transposed) {
      convolve_transposed(e, x.data<T>(), weight.data<T>(), bias_data, result.data<T>());
    } else {
      convolve(e, x.data<T>(), weight.data<T>(), bias_data, result.data<T>());
    }
  });
  return result.view();
}

std::optional<View> run(const ir::ConvWeightGrad& op, Views in, Outputs out) {
  if (dnnl_conv_takes(in[0].dtype) && nonempty(in, out[0])) {
    if (std::optional<View> done = weight_gradient_in_dnnl(op, in, out[0])) return done;
  }
  if (!has_fast_path(in, out[0])) return run_reduced_in_f32(op, in, out);
  const View x = contiguous(in[0]);
  const View grad_output = contiguous(in[1]);
  OutputTensor result(out[0]);
  const ConvExtents e = conv_extents(op.geometry, x.shape, grad_output.shape, op.weight_shape);
  visit_gemm_dtype(x.dtype, [&]<typename T>() {
    const T* dy = grad_output.data<T>();
    if (op.geometry.transposed) {
      weight_gradient(e, x.data<T>(), e.in_per_group, dy, e.out_per_group, e.out_volume,
                      result.data<T>());
    } else {
      weight_gradient(e, dy, e.out_per_group, x.data<T>(), e.in_per_group, e.in_volume,
                      result.data<T>());
    }
  });
  return result.view();
}

}  // namespace ember::flex
