// The checks of the graphics-API devices' (vulkan, wgpu: lavapipe in CI) fused attention kernels
// (backends/shader/attention_passes.h) against the host, a function of the device so that each
// backend's suite runs them on its own device: the backend's answer to runs_fused_attention, the
// public function and its gradients against the composite on ndarray, the op itself against
// ndarray's kernel where a row attends nothing, and by the shader backends' count of ops sent to
// the host, that the device's kernels computed them.
#pragma once

#include "ember/device.h"

namespace ember::test {

/// runs_fused_attention says yes to f32 within the kernels' head dims and no past them or in f64;
/// scaled_dot_product_attention and its gradients of q, k and v (through autodiff, on the fused
/// path the backend chose) against ndarray's composite: batch dims, L != S, E != Ev, causal,
/// Bool and additive masks that broadcast, several tiles and workgroups, head dim 128 (and 129,
/// the composite's); neither the op nor its gradient sent to the host.
void expect_attention_runs_on_the_device(const Device& device);
/// ir::Attention run directly where a row's mask attends no key: its result NaN and its lse -inf,
/// as ndarray's kernel gives, the other rows equal to ndarray's; not sent to the host.
void expect_masked_out_row_matches_the_host(const Device& device);

}  // namespace ember::test
