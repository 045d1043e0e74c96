// The checks of the shader devices' index-copy kernels (full, arange, cat, slice_assign, select,
// gather, select_assign, scatter: backends/shader/index_copy.h), each a function of the device, so
// that vulkan's and wgpu's suites run them on their own devices (lavapipe in CI).
#pragma once

#include "ember/device.h"

namespace ember::test {

/// Each op (arange on the integer dtypes; full of values each dtype rounds, truncates or holds
/// exactly, by the Fill kernel with no host run) and the cumulative ops on every dtype device
/// supports, against ndarray bit for bit, on the edges: odd sizes, an empty part, stepped slices,
/// the first, middle and last dim, 32- and 64-bit indices with duplicates, NaN and infinities, long
/// lanes; every case the kernels take counted as run on the device, the others (an add on f16, a
/// lane past the scan's longest) as run on the host. doubles: whether the device computes in
/// double (its f64, and its float cumulative sums and products, which ndarray accumulates in
/// double).
void expect_index_copies_match_ndarray(const Device& device, bool doubles);
/// An embedding's gradient: select_assign adding a few rows of values (duplicate indices among
/// them) into a table of 100000 rows, and the same along the last dim, on the device (its work
/// grows with the values, not the table) and ndarray's bits.
void expect_sparse_updates_of_a_large_table_on_the_device(const Device& device);
/// select by indices from the host (their range known: no check on the device, one dispatch)
/// and by indices computed on the device (checked by a kernel first: two), both ndarray's bits.
void expect_indices_from_the_host_are_not_checked_again(const Device& device);
/// An index out of range of select, gather, select_assign or scatter: ndarray's InvalidArgument
/// (the same message), and the device works afterwards.
void expect_index_out_of_range_is_ndarrays_error(const Device& device);

}  // namespace ember::test
