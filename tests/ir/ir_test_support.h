// Helpers of the ir rule tests: build metadata, run infer, capture its error message.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ember/error.h"
#include "ir/ops.h"

namespace ember::ir {

/// Lets GoogleTest print metadata in failed expectations: "[2, 3] f32".
inline void PrintTo(const TensorMeta& meta, std::ostream* os) {
  *os << meta.shape << ' ' << meta.dtype;
}

namespace test {

inline TensorMeta meta(Shape shape, DType dtype = DType::F32) {
  return {std::move(shape), dtype};
}

/// infer's outputs, expected to be exactly one.
inline TensorMeta infer_one(const Op& op, const std::vector<TensorMeta>& inputs) {
  const OutputMetas outputs = infer(op, inputs);
  EXPECT_EQ(outputs.size(), 1u) << name(op);
  return outputs.empty() ? TensorMeta{} : outputs.front();
}

/// The message of the InvalidArgument infer throws; a test failure when it throws none.
inline std::string infer_error(const Op& op, const std::vector<TensorMeta>& inputs) {
  try {
    infer(op, inputs);
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  ADD_FAILURE() << "[" << name(op) << "] did not throw InvalidArgument";
  return {};
}

/// For messages that print a Scalar, whose exact format is the core's: checks a fragment.
inline ::testing::AssertionResult contains(std::string_view text, std::string_view fragment) {
  if (text.find(fragment) != std::string_view::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << '"' << text << "\" lacks \"" << fragment << '"';
}

}  // namespace test
}  // namespace ember::ir
