// Each fused row op (ir/fused_rows.h) computed by its composite of other ops: what a recorded
// fused op becomes on a device that does not run it fused (Graph::replay, the ONNX export), and
// what softmax's backward rule runs there. The forward ops' composites are those the public
// functions take (row_composites.h), so a replay equals the eager run of the same device; the
// gradient ops' follow the ops' definitions (ir/ops.h), the reference kernels' oracle in tests.
#pragma once

#include "ember/tensor_ops.h"
#include "ir/ops.h"

namespace ember::tensor {

/// op's outputs, as ir::infer gives them, from inputs (as the op takes them) by the composite of
/// other ops. InvalidArgument "[<op>] ..." when op is not a fused row op.
ops::Handles composite_of(const ir::Op& op, const ops::Handles& inputs);

}  // namespace ember::tensor
