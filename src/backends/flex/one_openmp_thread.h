// OneOpenMpThread: keeps oneDNN calls on the calling thread. oneDNN runs on OpenMP, whose idle
// workers spin beside flex's pool threads after every call; flex splits oneDNN's work over its own
// pool instead (dnnl_conv.cpp, dnnl_gemm.cpp), each call on one OpenMP thread.
#pragma once

#include <omp.h>

namespace ember::flex {

/// Limits the calling thread to one OpenMP thread while it lives, so that nothing oneDNN does on
/// it (creating a primitive included) starts OpenMP workers; the caller's own setting is restored
/// after.
class OneOpenMpThread {
 public:
  OneOpenMpThread() : previous_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneOpenMpThread() { omp_set_num_threads(previous_); }
  OneOpenMpThread(const OneOpenMpThread&) = delete;
  OneOpenMpThread& operator=(const OneOpenMpThread&) = delete;

 private:
  int previous_;
};

}  // namespace ember::flex
