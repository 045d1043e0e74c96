// Spec items: settings and configure (and Devices::configure).
//
// Note: settings lock once per physical device for the whole process, and this binary has a
// single ndarray device that other tests lock by creating tensors. So the lock semantics are
// tested on fresh detail::DeviceContext objects built directly (not through the registry), and
// the Device-level behaviour runs in a fresh copy of this binary: a "threadsafe" death test
// re-executes the binary for just that statement, so the ndarray device there is untouched.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/ndarray/ndarray_backend.h"
#include "core/device_context.h"
#include "device_test_util.h"
#include "ember/device.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "support/fresh_process.h"

namespace ember {
namespace {

using test::contains;
using test::expect_in_fresh_process;

/// "" when f throws DeviceError of kind, else what happened.
std::string expect_device_error(DeviceErrorKind kind, const std::function<void()>& f) {
  try {
    f();
  } catch (const DeviceError& e) {
    return e.kind() == kind ? "" : std::string("wrong kind: ") + e.what();
  }
  return "configure did not throw";
}

std::unique_ptr<detail::DeviceContext> fresh_ndarray_context() {
  return std::make_unique<detail::DeviceContext>(NdArrayDevice{},
                                                 std::make_unique<ndarray::NdArrayBackend>());
}

/// A backend that cannot compute in f16: the only way to see UnsupportedDType, since ndarray
/// supports every dtype.
class NoHalfBackend final : public backend::Backend {
 public:
  std::string name() const override { return "no-half"; }
  std::string description() const override { return "test backend without f16"; }
  bool supports_dtype(DType dtype) const override { return dtype != DType::F16; }
  backend::Outputs execute(const ir::Op&, std::span<const backend::Operand>,
                           std::span<const ir::TensorMeta>) override {
    throw ExecutionError("[no-half] runs nothing");
  }
  backend::BufferPtr write(const TensorData&) override {
    throw ExecutionError("[no-half] stores nothing");
  }
  TensorData read(const backend::Operand&) override {
    throw ExecutionError("[no-half] stores nothing");
  }
};

const DeviceSettings kDefaults{FloatDType::F32, IntDType::I64, BoolDType::Bool};

TEST(DeviceSpec, SettingsDefaultToF32I64Bool) {
  EXPECT_EQ(Device::ndarray().settings(), kDefaults);
  EXPECT_EQ(fresh_ndarray_context()->settings(), kDefaults);
}

TEST(DeviceSpec, SettingsDoNotLock) {
  auto context = fresh_ndarray_context();
  EXPECT_EQ(context->settings(), kDefaults);
  EXPECT_EQ(context->settings(), kDefaults);
  context->configure(FloatDType::F64);
  EXPECT_EQ(context->settings().float_dtype, FloatDType::F64);
}

TEST(DeviceSpec, ConfigureChangesOnlyTheRequestedDefaults) {
  auto floats = fresh_ndarray_context();
  floats->configure(FloatDType::F16);
  EXPECT_EQ(floats->settings(), (DeviceSettings{FloatDType::F16, IntDType::I64}));
  auto ints = fresh_ndarray_context();
  ints->configure(DeviceConfig{}.with_int_dtype(IntDType::I16));
  EXPECT_EQ(ints->settings(), (DeviceSettings{FloatDType::F32, IntDType::I16}));
  auto both = fresh_ndarray_context();
  both->configure({FloatDType::BF16, IntDType::U8});
  EXPECT_EQ(both->lock_settings(), (DeviceSettings{FloatDType::BF16, IntDType::U8}));
}

/// ndarray, remembering the settings configure hands it.
class SettingsRecordingBackend final : public backend::Backend {
 public:
  std::string name() const override { return "recording"; }
  std::string description() const override { return "ndarray, recording its settings"; }
  bool supports_dtype(DType dtype) const override { return inner_.supports_dtype(dtype); }
  void apply_settings(const DeviceSettings& settings) override { applied.push_back(settings); }
  backend::Outputs execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                           std::span<const ir::TensorMeta> outputs) override {
    return inner_.execute(op, inputs, outputs);
  }
  backend::BufferPtr write(const TensorData& data) override { return inner_.write(data); }
  TensorData read(const backend::Operand& operand) override { return inner_.read(operand); }

  std::vector<DeviceSettings> applied;

 private:
  ndarray::NdArrayBackend inner_;
};

TEST(DeviceSpec, MatmulPrecisionDefaultsToHighestAndReachesTheBackend) {
  EXPECT_EQ(kDefaults.f32_matmul_precision, MatmulPrecision::Highest);
  auto recording = std::make_unique<SettingsRecordingBackend>();
  const SettingsRecordingBackend& backend = *recording;
  detail::DeviceContext context(NdArrayDevice{}, std::move(recording));
  context.configure(DeviceConfig{}.with_f32_matmul_precision(MatmulPrecision::High));
  EXPECT_EQ(context.settings().f32_matmul_precision, MatmulPrecision::High);
  EXPECT_EQ(context.settings().float_dtype, FloatDType::F32) << "the rest stays";
  ASSERT_EQ(backend.applied.size(), 1u);
  EXPECT_EQ(backend.applied[0], context.settings());
}

TEST(DeviceSpec, GraphReplayDefaultsToOnAndItsSwitchReachesTheBackend) {
  EXPECT_TRUE(kDefaults.graph_replay);
  auto recording = std::make_unique<SettingsRecordingBackend>();
  const SettingsRecordingBackend& backend = *recording;
  detail::DeviceContext context(NdArrayDevice{}, std::move(recording));
  context.configure(DeviceConfig{}.with_graph_replay(false));
  EXPECT_FALSE(context.settings().graph_replay);
  EXPECT_EQ(context.settings().f32_matmul_precision, MatmulPrecision::Highest) << "the rest stays";
  ASSERT_EQ(backend.applied.size(), 1u);
  EXPECT_EQ(backend.applied[0], context.settings());
}

TEST(DeviceSpec, ConfigureTwiceIsAlreadyInitialized) {
  auto context = fresh_ndarray_context();
  context->configure(FloatDType::F64);
  EXPECT_EQ(expect_device_error(DeviceErrorKind::AlreadyInitialized,
                                [&] { context->configure(FloatDType::F16); }),
            "");
  EXPECT_EQ(context->settings().float_dtype, FloatDType::F64) << "the first configure stands";
}

TEST(DeviceSpec, ConfigureAfterLockIsAlreadyInitialized) {
  auto context = fresh_ndarray_context();
  EXPECT_EQ(context->lock_settings(), kDefaults);
  EXPECT_EQ(expect_device_error(DeviceErrorKind::AlreadyInitialized,
                                [&] { context->configure(IntDType::I32); }),
            "");
}

TEST(DeviceSpec, ConfigureRejectsAnUnsupportedDType) {
  detail::DeviceContext context(NdArrayDevice{}, std::make_unique<NoHalfBackend>());
  try {
    context.configure({FloatDType::F16, IntDType::I32});
    ADD_FAILURE() << "configure accepted f16";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.kind(), DeviceErrorKind::UnsupportedDType);
    EXPECT_TRUE(contains(e.what(), "[configure]"));
    EXPECT_TRUE(contains(e.what(), "f16"));
  }
  EXPECT_EQ(context.settings(), kDefaults) << "a refused configuration changes nothing";
  context.configure(FloatDType::F64);  // and does not lock
  EXPECT_EQ(context.settings().float_dtype, FloatDType::F64);
}

TEST(DeviceSpec, ConfigureBeforeAnyTensorSetsTheDefaultDTypes) {
  expect_in_fresh_process([]() -> std::string {
    Device device = Device::ndarray();
    device.configure({FloatDType::F64, IntDType::I32});
    if (Tensor<2>::zeros({2, 3}, device).dtype() != DType::F64) return "float zeros not f64";
    if (Tensor<2, Int>::zeros({2, 3}, device).dtype() != DType::I32) return "int zeros not i32";
    if (device.settings() != DeviceSettings{FloatDType::F64, IntDType::I32}) return "settings";
    return expect_device_error(DeviceErrorKind::AlreadyInitialized,
                               [&] { device.configure(FloatDType::F16); });
  });
}

TEST(DeviceSpec, ConfigureAfterATensorWithExplicitDTypeIsAlreadyInitialized) {
  expect_in_fresh_process([]() -> std::string {
    Device device = Device::ndarray();
    if (device.settings() != kDefaults) return "defaults";  // querying does not lock...
    Tensor<1>::zeros({2}, TensorCreationOptions(device).with_dtype(FloatDType::F16));
    return expect_device_error(DeviceErrorKind::AlreadyInitialized,  // ...creating does
                               [&] { device.configure(FloatDType::F64); });
  });
}

TEST(DeviceSpec, DevicesConfigureConfiguresEveryDevice) {
  expect_in_fresh_process([]() -> std::string {
    Devices devices = Device::enumerate(DeviceType::NdArray);
    devices.configure(IntDType::I16);
    if (Device::ndarray().settings().int_dtype != IntDType::I16) return "not configured";
    return "";
  });
}

}  // namespace
}  // namespace ember
