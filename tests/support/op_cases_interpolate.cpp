// STUB (to be replaced): the interpolate cases of the op table.
#include "support/op_cases.h"

namespace ember::test {

std::vector<OpCase> interpolate_cases() {
  return {};
}

}  // namespace ember::test
