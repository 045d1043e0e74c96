// The conformance suite's coverage: which op case × dtype combinations each device runs
// against ndarray and which must be rejected, as a Markdown table for the closing notes.
#pragma once

#include <string>

#include "ember/devices.h"
#include "support/op_table.h"

namespace ember::test {

/// How the suite covers one op case in one dtype on one device.
enum class Coverage {
  Compared,     ///< Run on the device and on ndarray; the outputs must match.
  Rejected,     ///< The case does not accept the dtype: InvalidArgument (checked on ndarray).
  NotOnDevice,  ///< The device does not support the dtype.
};
Coverage coverage_of(const OpCase& op, DType dtype, const Device& device);

/// Counts per device, then the op case × dtype matrix.
std::string coverage_table(const Devices& devices);

}  // namespace ember::test
