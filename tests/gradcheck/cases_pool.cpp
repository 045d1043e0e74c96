// STUB (to be replaced): the pool gradient checks.
#include "gradcheck/gradcheck.h"

namespace ember::test {

std::vector<GradCase> pool_cases() {
  return {};
}

}  // namespace ember::test
