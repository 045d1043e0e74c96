// Helpers of the cuda tests: the backend's kernel sources compiled by NVRTC without a GPU.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "../codegen/codegen_test_util.h"

namespace ember::cuda::test {

/// Expects source to compile to sm_90 machine code (ptxas runs too, so registers and shared
/// memory are checked), naming what on failure. Callers skip first with
/// EMBER_SKIP_WITHOUT_NVRTC().
inline void expect_machine_code(const std::string& source, const std::string& what) {
#ifdef EMBER_WITH_NVRTC
  const codegen::test::Compiled compiled = codegen::test::compile(source, "kernel", "sm_90");
  EXPECT_TRUE(compiled.ok) << what << "\n" << compiled.log << "\n" << source;
  EXPECT_FALSE(compiled.uses_local_memory()) << what << " keeps values in local memory:\n"
                                             << compiled.ptx;
#else
  (void)source;
  (void)what;
#endif
}

}  // namespace ember::cuda::test
