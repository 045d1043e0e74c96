// Runs a check in a freshly started copy of the test binary: for what must not touch the process
// the other tests run in (a device's once-per-process settings lock, a GPU context left unusable).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>

namespace ember::test {

/// Runs check in a freshly started copy of this test binary (a "threadsafe" death test re-executes
/// the binary for just that statement); check returns "" on success or the description of what
/// went wrong, which the parent prints on failure. The copy leaves through std::exit, so static
/// destructors run there too: a crash on the way out fails the test.
inline void expect_in_fresh_process(const std::function<std::string()>& check) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const std::string why = check();
        std::cerr << why;
        std::exit(why.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace ember::test
