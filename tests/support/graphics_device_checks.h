// The checks every graphics-API device passes (vulkan, wgpu: lavapipe in CI), each a function of
// the device, so that each backend's suite runs them on its own device: the loop bound, dtype
// errors, uploads, memory reports, profile, flush and sync, the matmul kernel against ndarray.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/dispatch_device.h"
#include "ember/tensor.h"

namespace ember::test {

/// A tensor of dims with values from a fixed pattern (distinct, of both signs) on device.
Tensor<3> patterned(const std::vector<int64_t>& dims, const Device& device, int seed);

/// Whether device's kernels loop within lavapipe's bound (shader::kCpuDeviceLoopTurns): lavapipe
/// is the CPU kind of both backends ("vulkan:cpu", "wgpu:cpu"); a GPU's loops are bounded by
/// 32-bit counts only, so it takes on its kernels the cases that lavapipe leaves to the host.
bool loops_within_lavapipes_bound(const Device& device);
/// A device's loop bound (its shader::DeviceLimits::max_loop_turns) by its driver's name, not by
/// the kind the bound is read from: lavapipe's on llvmpipe, the 32-bit one on any GPU.
void expect_loop_bound_by_driver(const std::string& driver, const DeviceKind& kind,
                                 uint64_t max_loop_turns);
/// bf16 (which no graphics device computes) uploaded or cast to on device: an InvalidArgument
/// naming it, not garbage.
void expect_unsupported_dtype_is_an_error(const Device& device);
/// Every dtype device supports goes up and comes back byte for byte.
void expect_uploads_keep_every_byte(const Device& device);
/// The pools' reports count live tensors; memory_cleanup gives the pages back.
void expect_memory_reports_count_live_tensors(const Device& device);
/// profile measures a matmul's window on the device clock; an empty window reads as no time.
void expect_profile_on_the_device_clock(const Device& device);
/// flush and sync return once the work recorded so far is done.
void expect_flush_and_sync_finish_the_work(const Device& device);
/// erf of f32 runs on the device's kernels, within 3e-7 of the C library's (relative), keeping
/// signed zeros, +-1 at the infinities and NaN.
void expect_erf_on_the_device_within_f32(const Device& device);
/// The program kernels' flat kernel (16 bytes a load and a store: contiguous 4-byte tensors from
/// offsets of whole vectors) and the general one beside it against ndarray: f32 tensors of 1, 3,
/// 4, 5, 1023 and 4099 elements (partial last vectors), sliced from offsets that are multiples of
/// 4 elements (the flat kernel's copy) and others (the general kernel's); their copies, sums, sums
/// with one element broadcast and i32 sums bit for bit, exp and gelu within f32's tolerance.
void expect_flat_programs_match_ndarray(const Device& device);
/// A fused program of more tensors than the device binds to one kernel runs (op by op) and gives
/// every result.
void expect_a_program_past_the_bindings_runs(const Device& device);
/// The matmul kernel against ndarray: sizes across tiles, batches on both sides, a right-hand
/// side broadcast over the batch, an empty inner dim.
void expect_matmul_matches_ndarray(const Device& device);
/// The matmul kernels take every float dtype the device computes (f64 on the host where WGSL has
/// no doubles), odd sizes across tiles, partly broadcast batches, NaN and infinities, empty dims,
/// k up to the loop limit (one longer and batch dims that do not merge: the host), each equal to
/// ndarray's product value for value.
void expect_matmul_kernel_takes_every_float_case(const Device& device);
/// Products of transposes (either operand, both, batched, as autodiff and Linear make them) read
/// the transposed tensors as they are, never copied (f32, and f16 off cooperative matrices); the
/// same transposes read by anything else (an add, a reshape, a transpose back) are written
/// first. Every value ndarray's.
void expect_products_read_transposes_as_they_are(const Device& device);
/// The sort kernels against ndarray, bit for bit, none sent to the host: lanes along every dim,
/// of up to 2048 elements (the longest a workgroup sorts) and longer ones (2049, 3000, 5000,
/// 70000: blocks merged in passes), ties kept in order in both directions, NaN (largest),
/// infinities and both zeros, f32 and i32 keys.
void expect_sort_matches_ndarray(const Device& device);
/// Random tensors against ndarray seeded alike, bit for bit: default and Bernoulli draws by the
/// kernel (probabilities that f32 does not hold exactly included, none sent to the host), uniform
/// and normal ones on the host.
void expect_random_matches_ndarray(const Device& device);

/// round against ndarray, bit for bit, on every float dtype the device computes: halves of both
/// parities and signs, signed zeros, the largest values with a fraction, NaN and infinities (a
/// driver's own rounding truncated halves of doubles: lavapipe on an AVX2 host).
void expect_round_is_half_to_even(const Device& device);

}  // namespace ember::test
