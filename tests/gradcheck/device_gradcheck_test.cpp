// The same gradients on every enumerated device as on ndarray: each op case's backward rule runs
// on the device and on ndarray, in f64 where the device has it (else f32), and the input
// gradients must agree within the dtype's tolerance. A new backend adds rows here, not code.
#include <gtest/gtest.h>

#include <ostream>

#include "ember/device.h"
#include "gradcheck/gradcheck.h"
#include "support/devices_under_test.h"
#include "support/op_table.h"

namespace ember::test {
namespace {

struct DeviceCase {
  Device device;
  std::string name;
};

void PrintTo(const DeviceCase& row, std::ostream* os) {
  *os << row.name << " on " << row.device;
}

std::vector<DeviceCase> device_cases() {
  std::vector<DeviceCase> rows;
  for (const Device& device : devices_under_test()) {
    for (const std::string& name : case_names(grad_cases(), true))
      rows.push_back({device, name});
  }
  return rows;
}

class DeviceGradients : public ::testing::TestWithParam<DeviceCase> {};

TEST_P(DeviceGradients, MatchNdarray) {
  const auto& [device, name] = GetParam();
  const GradCase& c = find_case(name);
  const DType dtype = device.supports_dtype(DType::F64) ? DType::F64 : DType::F32;
  const TensorData g = output_gradient(c);
  const ops::Handles on_device = rule_vjp(c, device, g, dtype);
  const ops::Handles reference = rule_vjp(c, Device::ndarray(), g, dtype);
  ASSERT_EQ(on_device.size(), reference.size());
  for (std::size_t k = 0; k < reference.size(); ++k) {
    if (!reference[k].defined()) {
      EXPECT_FALSE(on_device[k].defined()) << "input " << k;
      continue;
    }
    EXPECT_TRUE(grad_matches(on_device[k], c.inputs[k], ops::into_data(reference[k]),
                             Tolerance::for_dtype(dtype), dtype))
        << "input " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, DeviceGradients, ::testing::ValuesIn(device_cases()),
                         [](const auto& info) {
                           return test_name(info.param.device.name() + "_" + info.param.name);
                         });

}  // namespace
}  // namespace ember::test
