// Backend defaults that need the op IR.
#include "backends/backend.h"

#include "ember/error.h"

namespace ember::backend {

Outputs Backend::execute_fused(const ir::Program& /*program*/, std::span<const Operand> /*inputs*/,
                               std::span<const Scalar> /*constants*/, const Shape& /*shape*/) {
  throw ExecutionError("[" + name() + "] does not run fused programs");
}

}  // namespace ember::backend
