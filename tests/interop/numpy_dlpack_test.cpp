// ember and NumPy share memory through DLPack, both ways: python/numpy_dlpack.py, run with
// /usr/bin/python3 (python3-numpy >= 1.22 has np.from_dlpack), loads python/dlpack_shim's library
// with ctypes. Not built under the sanitizers, whose runtime a plain Python cannot load.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/source_dir.h"

namespace ember::test {
namespace {

TEST(NumpyDlpack, SharesMemoryBothWays) {
#ifndef EMBER_DLPACK_SHIM
  GTEST_SKIP() << "no dlpack_shim library in this build (sanitizers on)";
#else
  ASSERT_EQ(std::system("/usr/bin/python3 -c 'import numpy; numpy.from_dlpack' 2>/dev/null"), 0)
      << "/usr/bin/python3 cannot import numpy.from_dlpack: run scripts/install-deps (as root) to "
         "install python3-numpy (1.22 or later)";
  const std::string command = std::string("/usr/bin/python3 ") + ember::test::source_dir() +
                              "/tests/interop/python/numpy_dlpack.py " + EMBER_DLPACK_SHIM;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
#endif
}

}  // namespace
}  // namespace ember::test
