// Conformance: every op case of the op table, in every dtype it accepts, on every device that
// Device::enumerate finds, against the same case on Device::ndarray() (the oracle). A new
// backend adds rows here, not code. Also the dtype half of the bad-input coverage: every dtype a
// case does not accept must be rejected with InvalidArgument on ndarray, never crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <fstream>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "coverage_table.h"
#include "ember/device.h"
#include "ember/error.h"
#include "support/devices_under_test.h"
#include "support/op_compare.h"
#include "support/op_table.h"

namespace ember::test {
namespace {

Devices all_devices() {
  return devices_under_test();
}

/// One row of the suite: an op case on a device (its dtypes loop inside the test, which keeps
/// the number of CTest processes, and so the suite's time under ASan, small).
struct DeviceOp {
  Device device;
  const OpCase* op;
};

void PrintTo(const DeviceOp& row, std::ostream* os) {
  *os << row.op->name << " on " << row.device;
}

std::vector<DeviceOp> device_ops() {
  std::vector<DeviceOp> rows;
  for (const Device& device : all_devices()) {
    for (const OpCase& op : op_table())
      rows.push_back({device, &op});
  }
  return rows;
}

/// The case's outputs on ndarray, as what every device must produce.
std::vector<ExpectedOutput> reference_outputs(const OpCase& op, const OpInputs& inputs,
                                              DType dtype) {
  std::vector<ExpectedOutput> expected;
  for (TensorData& out : read_all(run_case(op, inputs, {Device::ndarray(), dtype}))) {
    const DType out_dtype = out.dtype();
    expected.push_back({out_dtype, std::move(out)});
  }
  return expected;
}

/// Runs op on device in every dtype it is compared in, on inputs_for(dtype), against ndarray.
template <typename InputsFor>
void expect_matches_ndarray(const OpCase& op, const Device& device, const InputsFor& inputs_for) {
  for (DType dtype : kAllDTypes) {
    if (coverage_of(op, dtype, device) != Coverage::Compared) continue;
    const OpInputs inputs = inputs_for(dtype);
    std::vector<ExpectedOutput> expected;
    try {
      expected = reference_outputs(op, inputs, dtype);
    } catch (const std::exception& e) {
      ADD_FAILURE() << op.name << " " << dtype << " on ndarray threw: " << e.what();
      continue;
    }
    EXPECT_TRUE(run_matches(op, inputs, {device, dtype}, expected))
        << op.name << " " << dtype << " on " << device;
  }
}

class Conformance : public ::testing::TestWithParam<DeviceOp> {};

TEST_P(Conformance, MatchesNdarray) {
  const auto& [device, op] = GetParam();
  expect_matches_ndarray(*op, device, op->make_inputs);
}

INSTANTIATE_TEST_SUITE_P(Ops, Conformance, ::testing::ValuesIn(device_ops()), [](const auto& info) {
  return test_name(info.param.device.name() + "_" + info.param.op->name);
});

/// Copies of the case's inputs along a new leading dim: 32808 elements for a [2, 3, 4] input,
/// past the size from which a lone op runs as a fused program (32768, fusion/executor.cpp) that
/// flex compiles (from 2048, flex/fused.h), and not a whole number of vectors. Every input is
/// first brought to the same rank with leading ones, as broadcasting aligns shapes, so that the
/// copies broadcast as the originals did.
constexpr int64_t kLargeCopies = 1367;

TensorData repeated(const TensorData& data, std::size_t rank) {
  std::vector<int64_t> dims{kLargeCopies};
  dims.insert(dims.end(), rank - data.shape().rank(), 1);
  dims.insert(dims.end(), data.shape().dims().begin(), data.shape().dims().end());
  std::vector<std::byte> bytes;
  bytes.reserve(data.bytes().size() * kLargeCopies);
  for (int64_t copy = 0; copy < kLargeCopies; ++copy)
    bytes.insert(bytes.end(), data.bytes().begin(), data.bytes().end());
  return TensorData(std::move(bytes), Shape(std::move(dims)), data.dtype());
}

OpInputs enlarged(OpInputs inputs) {
  std::size_t rank = 0;
  for (const TensorData& t : inputs.tensors)
    rank = std::max(rank, t.shape().rank());
  for (TensorData& t : inputs.tensors)
    t = repeated(t, rank);
  return inputs;
}

std::vector<DeviceOp> elementwise_device_ops() {
  std::vector<DeviceOp> rows = device_ops();
  std::erase_if(rows, [](const DeviceOp& row) { return !row.op->elementwise; });
  return rows;
}

class LargeConformance : public ::testing::TestWithParam<DeviceOp> {};

TEST_P(LargeConformance, MatchesNdarrayWhereProgramsAreFusedAndCompiled) {
  const auto& [device, op] = GetParam();
  expect_matches_ndarray(*op, device,
                         [&](DType dtype) { return enlarged(op->make_inputs(dtype)); });
}

INSTANTIATE_TEST_SUITE_P(Ops, LargeConformance, ::testing::ValuesIn(elementwise_device_ops()),
                         [](const auto& info) {
                           return test_name(info.param.device.name() + "_" + info.param.op->name);
                         });

/// The names of the cases that reject some dtype.
std::vector<std::string> restricted_ops() {
  std::vector<std::string> names;
  for (const OpCase& op : op_table()) {
    if (op.dtypes != DTypes::All) names.push_back(op.name);
  }
  return names;
}

class Rejection : public ::testing::TestWithParam<std::string> {};

TEST_P(Rejection, OtherDTypesThrowInvalidArgument) {
  const OpCase& op = *find_op_case(GetParam());
  const Device ndarray = Device::ndarray();
  for (DType dtype : kAllDTypes) {
    if (coverage_of(op, dtype, ndarray) != Coverage::Rejected) continue;
    const OpInputs inputs = op.make_inputs(dtype);
    try {
      run_case(op, inputs, {ndarray, dtype});
      ADD_FAILURE() << op.name << " accepted " << dtype;
    } catch (const InvalidArgument& e) {
      // Messages start with the op's name in brackets: "[add] ...".
      EXPECT_EQ(std::string(e.what()).substr(0, 1), "[")
          << op.name << " " << dtype << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << op.name << " " << dtype << " threw another error: " << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Rejection, ::testing::ValuesIn(restricted_ops()),
                         [](const auto& info) { return test_name(info.param); });

TEST(ConformanceTable, PrintsAndWritesTheCoverage) {
  const Devices devices = all_devices();
  ASSERT_FALSE(devices.empty()) << "Device::enumerate(DeviceFilter::all()) found no device";
  const std::string table = coverage_table(devices);
  std::cout << table;
  const std::string path = std::string(EMBER_BINARY_DIR) + "/conformance_table.md";
  std::ofstream file(path);
  file << table;
  EXPECT_TRUE(file.good()) << "cannot write " << path;
}

}  // namespace
}  // namespace ember::test
