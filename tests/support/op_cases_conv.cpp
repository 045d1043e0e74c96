// STUB (to be replaced): the conv cases of the op table.
#include "support/op_cases.h"

namespace ember::test {

std::vector<OpCase> conv_cases() {
  return {};
}

}  // namespace ember::test
