// The checks of the graphics-API devices' (vulkan, wgpu: lavapipe in CI) reduction and softmax
// kernels against ndarray, each a function of the device so that each backend's suite runs them
// on its own device; each also checks, by the shader backends' count of ops sent to the host,
// that the kernels (not ndarray's on the host) computed the results.
#pragma once

#include <initializer_list>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember::test {

/// max, min, argmax, argmin, prod, var, any and all along every dim and over the whole tensor
/// against ndarray (exact but var's): odd sizes, lanes longer than one chunk, NaN and infinities,
/// i32 and Bool inputs, ties (the first index wins), each of float_dtypes; none sent to the host.
void expect_reductions_run_on_the_device(const Device& device,
                                         std::initializer_list<DType> float_dtypes);
/// softmax and log_softmax along every dim against ndarray within f32 rounding: lanes longer
/// than a workgroup, NaN and infinities, an empty dim; none sent to the host.
void expect_softmax_runs_on_the_device(const Device& device);
/// A whole-tensor sum of 2^24 elements against ndarray, on the device.
void expect_long_sum_runs_on_the_device(const Device& device);
/// cross_entropy's forward and backward (the fused row ops where the backend runs them, else
/// composites of elementwise ops, softmax and reductions) against ndarray; no reduction or
/// softmax sent to the host.
void expect_cross_entropy_runs_on_the_device(const Device& device);

}  // namespace ember::test
