// Helpers shared by the core value-type tests.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "ember/error.h"
#include "support/invalid_argument.h"

namespace ember::test {

/// What operator<< prints for value.
template <typename T>
std::string printed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace ember::test
