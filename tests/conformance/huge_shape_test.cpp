// Huge shapes, on every device Device::enumerate finds: every creation op and every op that can
// make a tensor larger than its inputs, asked for a tensor whose byte count overflows int64 (or,
// for an input that is itself huge, one no machine can hold). The answer must be a clear
// ember::Error, never a crash, and the device must work afterwards.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/convolution.h"
#include "ember/device.h"
#include "ember/error.h"
#include "ember/tensor_ops.h"
#include "support/op_table.h"
#include "support/sanitizer.h"

namespace ember::test {
namespace {

constexpr int64_t k2To31 = int64_t{1} << 31;
constexpr int64_t k2To60 = int64_t{1} << 60;
constexpr int64_t k2To61 = int64_t{1} << 61;
constexpr int64_t k2To62 = int64_t{1} << 62;

struct HugeCase {
  std::string name;
  /// Builds the op's result on the device; must throw.
  std::function<ops::Handles(const Device&)> run;
  /// Whether the shape rule alone refuses it (InvalidArgument). Otherwise the answer may also
  /// be an ExecutionError: an input that is itself huge (a view on flex, but memory on ndarray)
  /// fails there first, out of memory.
  bool refused_by_rule = true;
};

TensorCreationOptions f32(const Device& d) {
  return TensorCreationOptions(d).with_dtype(DType::F32);
}

/// [1] f32 viewed as [n]: valid (2^62 bytes at n = 2^60), but no machine holds it.
TensorHandle expanded(const Device& d, int64_t n, DType dtype = DType::F32) {
  return ops::expand(ops::ones({1}, TensorCreationOptions(d).with_dtype(dtype), kind_of(dtype)),
                     {n});
}

std::vector<HugeCase> huge_cases() {
  const auto one = [](TensorHandle t) { return ops::Handles{std::move(t)}; };
  return {
      {"zeros",
       [=](const Device& d) { return one(ops::zeros({k2To62}, f32(d), TensorKind::Float)); }},
      {"ones",
       [=](const Device& d) {
         return one(ops::ones({k2To31, k2To31}, f32(d), TensorKind::Float));
       }},
      {"empty",
       [=](const Device& d) { return one(ops::empty({k2To62}, f32(d), TensorKind::Float)); }},
      {"full",
       [=](const Device& d) { return one(ops::full({k2To62}, 1.5, f32(d), TensorKind::Float)); }},
      {"random",
       [=](const Device& d) {
         return one(ops::random({k2To62}, Distribution::Default, f32(d), TensorKind::Float));
       }},
      {"arange",
       [=](const Device& d) {
         return one(ops::arange(0, k2To62, 1, TensorCreationOptions(d).with_dtype(DType::I64)));
       }},
      {"eye", [=](const Device& d) { return one(ops::eye(k2To31, f32(d), TensorKind::Float)); }},
      {"from_data",
       [=](const Device& d) {
         return one(
             ops::from_data(TensorData(std::vector<std::byte>{}, Shape{0, k2To62}, DType::F32), d,
                            TensorKind::Float));
       }},
      {"one_hot",
       [=](const Device& d) {
         const TensorHandle labels =
             ops::zeros({4}, TensorCreationOptions(d).with_dtype(DType::I64), TensorKind::Int);
         return one(ops::one_hot(labels, k2To62, TensorKind::Float));
       }},
      {"expand", [=](const Device& d) { return one(expanded(d, k2To62)); }},
      {"repeat_dim",
       [=](const Device& d) {
         return one(ops::repeat_dim(ops::ones({2}, f32(d), TensorKind::Float), 0, k2To61));
       }},
      {"reshape",
       [=](const Device& d) {
         return one(ops::reshape(expanded(d, k2To60), {int64_t{1} << 30, int64_t{1} << 30}));
       },
       false},
      {"cat",
       [=](const Device& d) {
         const TensorHandle x = expanded(d, k2To60);
         return one(ops::cat({x, x}, 0));
       },
       false},
      {"stack",
       [=](const Device& d) {
         const TensorHandle x = expanded(d, k2To60);
         return one(ops::stack({x, x}, 0));
       },
       false},
      {"cast",
       [=](const Device& d) { return one(ops::cast(expanded(d, k2To61, DType::U8), DType::F64)); },
       false},
      {"pad",
       [=](const Device& d) {  // a convolution's zero padding
         const TensorHandle x = ops::ones({1, 1, 1, 1}, f32(d), TensorKind::Float);
         const TensorHandle w = ops::ones({1, 1, 1, 1}, f32(d), TensorKind::Float);
         return one(ops::conv(x, w, std::nullopt, {.padding = {k2To31}}));
       }},
  };
}

struct HugeRow {
  Device device;
  HugeCase op;
};

void PrintTo(const HugeRow& row, std::ostream* os) {
  *os << row.op.name << " on " << row.device;
}

std::vector<HugeRow> huge_rows() {
  std::vector<HugeRow> rows;
  for (const Device& device : Device::enumerate(DeviceFilter::all())) {
    for (HugeCase& op : huge_cases())
      rows.push_back({device, std::move(op)});
  }
  return rows;
}

class HugeShape : public ::testing::TestWithParam<HugeRow> {};

TEST_P(HugeShape, IsAClearErrorAndTheDeviceWorksAfterwards) {
  const auto& [device, op] = GetParam();
  // A row the rule does not refuse may reach an allocation, which ends the process under ASan.
  if (!op.refused_by_rule && !kOutOfMemoryThrows) GTEST_SKIP() << kAsanEndsOnOutOfMemory;
  try {
    read_all(op.run(device));
    ADD_FAILURE() << op.name << " on " << device << " made a huge tensor";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 1), "[") << e.what();
  } catch (const ExecutionError& e) {
    EXPECT_FALSE(op.refused_by_rule) << "the shape rule should refuse it: " << e.what();
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
  }
  device.memory_cleanup();
  const TensorHandle x =
      ops::from_data(TensorData(std::vector<float>{1, 2}, Shape{2}), device, TensorKind::Float);
  EXPECT_EQ(ops::into_data(ops::add(x, x)).to_vector<float>(), (std::vector<float>{2, 4}));
}

INSTANTIATE_TEST_SUITE_P(Ops, HugeShape, ::testing::ValuesIn(huge_rows()), [](const auto& info) {
  return test_name(info.param.device.name() + "_" + info.param.op.name);
});

}  // namespace
}  // namespace ember::test
