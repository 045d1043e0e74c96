// Flex's fused elementwise kernel: runs a fused program (src/ir/program.h)
// as one pass over its output shape. The elements are cut into tiles of a few thousand, and the
// tiles are shared out over the thread pool; on a tile every input is read once (straight from
// memory when it is laid out row-major, else gathered: broadcast, strided or a single repeated
// value), every instruction runs on the whole tile in scratch slots that stay in cache
// (fused_tile.h), and only the program's outputs are stored: with streaming stores, past the
// caches, when the program's traffic is larger than they are.
#pragma once

#include <span>
#include <vector>

#include "backends/flex/kernels.h"
#include "backends/flex/view.h"
#include "ember/scalar.h"
#include "ember/shape.h"
#include "ir/program.h"

namespace ember::flex {

/// Elements per tile: 8 KiB of f32 per slot, so the handful of slots a program keeps alive
/// stays in the L1/L2 caches, while each SIMD loop call still covers enough elements to hide
/// its dispatch.
inline constexpr int64_t kTileElements = 2048;

/// Whether the program reads, computes or writes bf16 or f16 (computed in f32 tiles, each narrow
/// instruction's result rounded to its dtype, as the eager ops round; the JIT takes none).
bool has_narrow(const ir::Program& program);

/// The program's outputs over shape, inputs[k] being program input k (broadcastable to shape)
/// and constants the scalars of its instructions.
std::vector<View> run_fused(const ir::Program& program, Views inputs,
                            std::span<const Scalar> constants, const Shape& shape);

}  // namespace ember::flex
