// Single values computed by the ndarray reference kernels: the lanes the SIMD activations leave
// out (NaN and infinities), so those come out exactly as ndarray's.
#pragma once

#include "ir/ops.h"

namespace ember::flex {

float reference_activation(const ir::Activation& op, float x);
double reference_activation(const ir::Activation& op, double x);

}  // namespace ember::flex
