// f32 convolutions through oneDNN (Debian's libdnnl, the library PyTorch's CPU convolutions use),
// when the build has it (EMBER_WITH_DNNL). Every case is one of a plain convolution's three
// primitives, described by the convolution's own shapes:
//
//   Conv:                        forward          src = x,           dst = out (+ bias)
//   Conv, transposed:            backward data    diff_dst = x,      diff_src = out (+ bias)
//   ConvWeightGrad:              backward weights src = x,           diff_dst = grad_output
//   ConvWeightGrad, transposed:  backward weights src = grad_output, diff_dst = x
//
// Each function returns false when oneDNN is absent or declines the case (the caller then runs
// im2col + BLAS, conv.cpp); the output is written only when it returns true.
#pragma once

#include "backends/flex/view.h"
#include "ir/ops.h"

namespace ember::flex {

/// Whether this build has oneDNN (without it both functions below always return false).
bool dnnl_in_build();

/// out = op(x, weight) + bias for contiguous f32 views (bias may be null).
bool dnnl_convolve(const ir::ConvGeometry& geometry, const View& x, const View& weight,
                   const View* bias, float* out, const Shape& out_shape);

/// grad_weight of a Conv with this geometry, from its input x and grad_output (contiguous f32).
bool dnnl_weight_gradient(const ir::ConvGeometry& geometry, const View& x, const View& grad_output,
                          float* grad_weight, const Shape& weight_shape);

}  // namespace ember::flex
