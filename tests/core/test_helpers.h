// Helpers shared by the core value-type tests.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "ember/error.h"

namespace ember::test {

/// What operator<< prints for value.
template <typename T>
std::string printed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

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
