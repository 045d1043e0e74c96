// One instruction of a fused program (src/ir/program.h) on one tile: n consecutive elements
// of each argument, laid out contiguously. F32 work goes through the SIMD loops of simd.h;
// selections, casts and Bool logic are plain loops; the variants simd.h does not cover (erf,
// pow, Bool comparisons, ...) run the ndarray kernel on a copy of the tile, so every op gives
// ndarray's values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::flex {

/// One argument of an instruction on a tile.
struct TileArg {
  const std::byte* data;  ///< n elements
  DType dtype;
};

/// out[i] = op(args...[i]) for i < n, out holding dtype elements. out may be the array of an
/// argument of the same dtype (the op then runs in place). op is elementwise with fusible
/// (F32, Bool) element types; anything else is an ExecutionError.
void run_on_tile(const ir::Op& op, std::span<const TileArg> args, std::byte* out, DType dtype,
                 int64_t n);

}  // namespace ember::flex
