// The tensor layer as autodiff sees it: the one header of src/tensor/ that src/autodiff/ includes
// (scripts/check-layers enforces it). Autodiff needs six things of the layer above it:
//   - tensor::run and tensor::run_one (dispatch.h): run an ir op, for the rules whose gradient
//     ops have no public function (conv, pool, interpolate) and for checkpointing's recompute;
//   - detail::TensorImpl and tensor::impl_of (tensor_impl.h, check.h): a tensor's node, buffer
//     and device, which the tape links and backward reads;
//   - tensor::fail and tensor::shape_of (check.h): errors in the Tensor API's wording;
//   - tensor::AutocastSuspended (autocast.h): backward runs in the forward ops' dtypes;
//   - tensor::runs_fused_rows (fused_path.h): whether a rule emits a fused gradient op
//     (softmax's ir::SoftmaxGrad) or its composite (tensor::composite_of,
//     fused_row_composites.h).
// Everything else of src/tensor/ stays out of autodiff's reach.
#pragma once

#include "tensor/autocast.h"              // IWYU pragma: export
#include "tensor/check.h"                 // IWYU pragma: export
#include "tensor/dispatch.h"              // IWYU pragma: export
#include "tensor/fused_path.h"            // IWYU pragma: export
#include "tensor/fused_row_composites.h"  // IWYU pragma: export
#include "tensor/tensor_impl.h"           // IWYU pragma: export
