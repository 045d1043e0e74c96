// num_threads / set_num_threads: forwarded to the CPU backends' pool through the registry.
#include "ember/threads.h"

#include <string>

#include "backends/registry.h"
#include "ember/error.h"

namespace ember {

int num_threads() {
  return backend::cpu_threads();
}

void set_num_threads(int n) {
  if (n < 1) {
    throw InvalidArgument("[set_num_threads] needs at least 1 thread, got " + std::to_string(n));
  }
  backend::set_cpu_threads(n);
}

}  // namespace ember
