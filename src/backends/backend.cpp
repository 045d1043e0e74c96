// Backend defaults that need the op IR.
#include "backends/backend.h"

namespace ember::backend {

bool Backend::supports_op(const ir::Op& /*op*/) const {
  return true;
}

}  // namespace ember::backend
