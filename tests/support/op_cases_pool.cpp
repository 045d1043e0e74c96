// STUB (to be replaced): the pool cases of the op table.
#include "support/op_cases.h"

namespace ember::test {

std::vector<OpCase> pool_cases() {
  return {};
}

}  // namespace ember::test
