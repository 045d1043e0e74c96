// Deterministic benchmark inputs and a checksum of outputs, so that ember and its PyTorch peer
// (bench/peer_torch/common.py computes the same values) run on identical data and the driver can
// check that both computed the same thing.
#pragma once

#include <cstdint>

#include "ember/device.h"
#include "ember/shape.h"
#include "ember/tensor_handle.h"

namespace ember::bench {

/// An f32 tensor on device whose element i (row-major) is ((7919 i + 12345 seed) mod 65521) /
/// 32760.5 - 1: values in [-1, 1), no two equal within 65521 elements (argmax has no ties), each
/// step one correctly rounded f32 operation, as PyTorch computes them.
TensorHandle pattern(const Shape& shape, int64_t seed, const Device& device);

/// The sum of |x| in double, read back from the device.
double checksum(const TensorHandle& x);

}  // namespace ember::bench
