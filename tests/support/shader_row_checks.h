// The checks of the graphics-API devices' (vulkan, wgpu: lavapipe in CI) fused row ops
// (backends/shader/row_passes.h), each a function of the device, so that each backend's suite
// runs them on its own device.
#pragma once

#include "ember/device.h"

namespace ember::test {

/// layer_norm (weight and bias on and off), rms_norm, cross_entropy (class weights, label
/// smoothing, ignore_index, i32 and i64 targets) and softmax's backward along the last dim and
/// another, rows longer than a workgroup: runs_fused_rows says yes, nothing goes to the host, and
/// the results and gradients match the composites on ndarray (in f64, from the same f32 values).
void expect_fused_rows_run_on_the_device(const Device& device);
/// The fused row ops run directly on rows holding NaN, +inf and only -inf (layer_norm, rms_norm,
/// cross_entropy with label smoothing, their gradient ops, softmax's backward): on the device,
/// ndarray's values (NaN where it has NaN, the same infinities).
void expect_row_specials_match_ndarray(const Device& device);
/// A target outside [0, C) that is not ignore_index: the device's cross_entropy (fused, forward
/// and backward op) throws ndarray's InvalidArgument naming it.
void expect_bad_target_is_an_error(const Device& device);

}  // namespace ember::test
