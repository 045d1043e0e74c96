// f32 convolutions through oneDNN (Debian's libdnnl, the library PyTorch's CPU convolutions use),
// when the build has it (EMBER_WITH_DNNL), and bf16/f16 ones where oneDNN runs them natively
// (dnnl_context.h's dnnl_native: AVX512-BF16 or AMX for bf16; f32 sums, rounded once). Every case
// is one of a plain convolution's three primitives, described by the convolution's own shapes:
//
//   Conv:                        forward          src = x,           dst = out (+ bias)
//   Conv, transposed:            backward data    diff_dst = x,      diff_src = out (+ bias)
//   ConvWeightGrad:              backward weights src = x,           diff_dst = grad_output
//   ConvWeightGrad, transposed:  backward weights src = grad_output, diff_dst = x
//
// Each function returns false when oneDNN is absent or declines the case (the caller then runs
// im2col + BLAS, or for bf16/f16 converts to f32, conv.cpp); the output is written only when it
// returns true. A bf16/f16 transposed convolution with a bias is declined.
#pragma once

#include "backends/flex/view.h"
#include "ir/ops.h"

namespace ember::flex {

/// Whether this build has oneDNN (without it both functions below always return false).
bool dnnl_in_build();

/// Whether oneDNN computes convolutions of dtype here: f32, and bf16/f16 where it runs them
/// natively; never in a build without oneDNN.
bool dnnl_conv_takes(DType dtype);

/// out = op(x, weight) + bias for contiguous views of one dtype (bias may be null); out holds
/// out_shape's elements of that dtype.
bool dnnl_convolve(const ir::ConvGeometry& geometry, const View& x, const View& weight,
                   const View* bias, void* out, const Shape& out_shape);

/// grad_weight (weight_shape's elements of x's dtype) of a Conv with this geometry, from its
/// input x and grad_output (contiguous, one dtype).
bool dnnl_weight_gradient(const ir::ConvGeometry& geometry, const View& x, const View& grad_output,
                          void* grad_weight, const Shape& weight_shape);

}  // namespace ember::flex
