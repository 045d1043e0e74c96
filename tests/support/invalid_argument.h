// The message of an expected InvalidArgument, for tests that check what a refusal says.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ember/error.h"

namespace ember::test {

/// The message of the InvalidArgument that f throws; fails the test when f throws nothing.
template <typename F>
std::string invalid_argument_message(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected ember::InvalidArgument";
  return {};
}

}  // namespace ember::test
