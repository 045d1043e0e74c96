#include "support/shader_row_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/shader/host_runs.h"
#include "ember/autodiff.h"
#include "ember/ember.h"
#include "ir/ops.h"
#include "tensor/dispatch.h"
#include "tensor/fused_path.h"

namespace ember::test {
namespace {

using RowFunction = std::function<TensorHandle(const ops::Handles& inputs)>;

/// Deterministic values in [-2, 2] (shifted by offset), in f64.
TensorData row_values(const Shape& shape, double seed, double offset = 0.0) {
  std::vector<double> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = offset + 2.0 * std::sin(seed + 1.37 * static_cast<double>(i) + 0.01 * i * i);
  return TensorData(v, shape);
}

/// data as tensors on device (autodiff on): f64 data cast to dtype and asking for a gradient,
/// the rest (targets) as it is.
ops::Handles row_inputs_on(const std::vector<TensorData>& data, const Device& device, DType dtype) {
  ops::Handles inputs;
  for (const TensorData& x : data) {
    const bool is_float = x.dtype() == DType::F64;
    TensorHandle h = ops::from_data(is_float ? x.convert(dtype) : x, device.autodiff(),
                                    is_float ? TensorKind::Float : TensorKind::Int);
    inputs.push_back(is_float ? ops::require_grad(h) : h);
  }
  return inputs;
}

/// f's result on data, then every Float input's gradient of sum(result * g) for a fixed g, as
/// f64 data.
std::vector<TensorData> row_outcome(const RowFunction& f, const std::vector<TensorData>& data,
                                    const Device& device, DType dtype) {
  const ops::Handles inputs = row_inputs_on(data, device, dtype);
  const TensorHandle y = f(inputs);
  const TensorHandle g = ops::from_data(row_values(y.shape(), 0.77).convert(y.dtype()),
                                        device.autodiff(), TensorKind::Float);
  const Gradients grads = ops::backward(ops::sum(ops::mul(y, g)));
  std::vector<TensorData> all{ops::into_data(y).convert(DType::F64)};
  for (std::size_t i = 0; i < data.size(); ++i)
    if (data[i].dtype() == DType::F64)
      all.push_back(ops::into_data(*grads.get(inputs[i])).convert(DType::F64));
  return all;
}

/// The fused row ops and softmaxes (by name, with their counts) the shader backends sent to the
/// host since before. (The public functions' other ops, such as cross_entropy's count of the
/// targets that are not ignored, run where their own kernels take them.)
std::string host_runs_since(const std::map<std::string, uint64_t>& before) {
  std::string sent;
  for (const auto& [name, count] : shader::HostRuns::counts_so_far()) {
    bool row_op = false;
    for (const char* part : {"layer_norm", "rms_norm", "cross_entropy", "softmax"})
      row_op = row_op || name.find(part) != std::string::npos;
    const auto it = before.find(name);
    const uint64_t earlier = it == before.end() ? 0 : it->second;
    if (row_op && count > earlier) sent += name + " x" + std::to_string(count - earlier) + " ";
  }
  return sent;
}

/// The case: f on data, whose fused row op op runs on data[0] and the metadata of its other
/// inputs others.
struct RowCase {
  std::string name;
  ir::Op op;
  std::vector<ir::TensorMeta> others;
  RowFunction f;
  std::vector<TensorData> data;
};

/// The case's op is taken by the device's backend; f on the device matches the composite on
/// ndarray in f64 (from the same f32 values), with nothing sent to the host.
void expect_case_runs_on_the_device(const RowCase& c, const Device& device) {
  const ops::Handles inputs = row_inputs_on(c.data, device, DType::F32);
  std::vector<ir::TensorMeta> metas{{inputs[0].shape(), inputs[0].dtype()}};
  metas.insert(metas.end(), c.others.begin(), c.others.end());
  EXPECT_TRUE(tensor::runs_fused_rows(c.op, inputs[0], metas, c.name)) << c.name;
  std::vector<TensorData> rounded;
  for (const TensorData& x : c.data)
    rounded.push_back(x.dtype() == DType::F64 ? x.convert(DType::F32).convert(DType::F64) : x);
  std::vector<TensorData> expected;
  {
    const tensor::FusedPathScope composite(tensor::FusedPath::Composite);
    expected = row_outcome(c.f, rounded, Device::ndarray(), DType::F64);
  }
  const auto before = shader::HostRuns::counts_so_far();
  const std::vector<TensorData> got = row_outcome(c.f, rounded, device, DType::F32);
  EXPECT_EQ(host_runs_since(before), "") << c.name;
  ASSERT_EQ(got.size(), expected.size()) << c.name;
  for (std::size_t k = 0; k < got.size(); ++k) {
    std::string why;
    EXPECT_TRUE(got[k].approx_equal(expected[k], Tolerance{2e-4, 2e-5}, &why))
        << c.name << ", output " << k << ": " << why;
  }
}

/// The targets of rows rows in [0, classes), every third one ignore when ignored, in dtype.
TensorData row_targets(int64_t rows, int64_t classes, bool ignored, int64_t ignore, DType dtype) {
  std::vector<int64_t> t(static_cast<std::size_t>(rows));
  for (int64_t i = 0; i < rows; ++i)
    t[static_cast<std::size_t>(i)] = ignored && i % 3 == 1 ? ignore : (i * 7 + 3) % classes;
  return TensorData(t, Shape{rows}).convert(dtype);
}

std::vector<RowCase> norm_cases() {
  std::vector<RowCase> cases;
  for (const Shape& shape : {Shape{3, 3000}, Shape{70, 33}, Shape{2, 3, 17}}) {
    const int64_t n = shape.dims().back();
    const TensorData x = row_values(shape, 0.3, 0.5);
    const TensorData w = row_values({n}, 1.1, 1.0);
    const TensorData b = row_values({n}, 2.3);
    const ir::TensorMeta row{Shape{n}, DType::F32};
    const std::string at = " " + std::to_string(n);
    cases.push_back(
        {"layer_norm affine" + at,
         ir::LayerNorm{1e-5, false, true, true},
         {row, row},
         [n](const ops::Handles& in) { return ops::layer_norm(in[0], {n}, in[1], in[2], 1e-5); },
         {x, w, b}});
    cases.push_back({"layer_norm weight" + at,
                     ir::LayerNorm{1e-3, false, true, false},
                     {row},
                     [n](const ops::Handles& in) {
                       return ops::layer_norm(in[0], {n}, in[1], std::nullopt, 1e-3);
                     },
                     {x, w}});
    cases.push_back({"layer_norm bias" + at,
                     ir::LayerNorm{1e-5, false, false, true},
                     {row},
                     [n](const ops::Handles& in) {
                       return ops::layer_norm(in[0], {n}, std::nullopt, in[1], 1e-5);
                     },
                     {x, b}});
    cases.push_back({"layer_norm plain" + at,
                     ir::LayerNorm{1e-5},
                     {},
                     [n](const ops::Handles& in) {
                       return ops::layer_norm(in[0], {n}, std::nullopt, std::nullopt, 1e-5);
                     },
                     {x}});
    cases.push_back({"rms_norm weight" + at,
                     ir::LayerNorm{1e-6, true, true, false},
                     {row},
                     [n](const ops::Handles& in) { return ops::rms_norm(in[0], {n}, in[1], 1e-6); },
                     {x, w}});
    cases.push_back(
        {"rms_norm plain" + at,
         ir::LayerNorm{1e-5, true},
         {},
         [n](const ops::Handles& in) { return ops::rms_norm(in[0], {n}, std::nullopt, 1e-5); },
         {x}});
  }
  return cases;
}

std::vector<RowCase> cross_entropy_cases() {
  std::vector<RowCase> cases;
  for (const Shape& shape : {Shape{5, 3000}, Shape{40, 7}}) {
    const int64_t rows = shape[0];
    const int64_t classes = shape[1];
    const TensorData logits = row_values(shape, 0.2);
    // In f32 values, the same on the device and in the f64 reference.
    const TensorData weight =
        row_values({classes}, 0.8, 2.5).convert(DType::F32).convert(DType::F64);
    for (const double smoothing : {0.0, 0.1}) {
      for (const int64_t ignore : {int64_t{-100}, int64_t{2}}) {
        for (const DType dtype : {DType::I64, DType::I32}) {
          const TensorData t = row_targets(rows, classes, true, ignore, dtype);
          const ir::TensorMeta t_meta{Shape{rows}, dtype};
          const std::string name = "cross_entropy " + std::to_string(classes) + " classes, s " +
                                   std::to_string(smoothing) + ", ignore " +
                                   std::to_string(ignore) + ", " + std::string(dtype_name(dtype));
          cases.push_back({name,
                           ir::CrossEntropy{ignore, smoothing, false},
                           {t_meta},
                           [=](const ops::Handles& in) {
                             return ops::cross_entropy(in[0], in[1], std::nullopt,
                                                       module::Reduction::Mean, smoothing, ignore);
                           },
                           {logits, t}});
          // Class weights as a constant (no gradient asked): through the fused op.
          cases.push_back({name + ", weighted",
                           ir::CrossEntropy{ignore, smoothing, true},
                           {t_meta, {Shape{classes}, DType::F32}},
                           [=](const ops::Handles& in) {
                             const TensorHandle w = ops::from_data(
                                 weight.convert(in[0].dtype()), in[0].device(), TensorKind::Float);
                             return ops::cross_entropy(in[0], in[1], w, module::Reduction::Sum,
                                                       smoothing, ignore);
                           },
                           {logits, t}});
        }
      }
    }
  }
  return cases;
}

std::vector<RowCase> softmax_cases() {
  std::vector<RowCase> cases;
  // Along the last dim, and along a middle one (its lanes strided by 7).
  for (const auto& [shape, along] :
       {std::pair{Shape{3, 4, 3000}, int64_t{2}}, std::pair{Shape{3, 500, 7}, int64_t{1}}}) {
    const int64_t dim = along;  // a copy the lambda captures
    const TensorData x = row_values(shape, 0.45);
    for (const bool log : {false, true}) {
      const std::string name =
          std::string(log ? "log_softmax" : "softmax") + " along dim " + std::to_string(dim);
      cases.push_back({name,
                       ir::SoftmaxGrad{{dim, log}},
                       {{shape, DType::F32}},
                       [dim, log](const ops::Handles& in) {
                         return log ? ops::log_softmax(in[0], dim) : ops::softmax(in[0], dim);
                       },
                       {x}});
    }
  }
  return cases;
}

/// x [4, 300] in f32: row 0 finite, row 1 with a NaN, row 2 with +inf, row 3 all -inf.
TensorData special_rows() {
  std::vector<float> v(4 * 300);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = i >= 900 ? -std::numeric_limits<float>::infinity()
                    : static_cast<float>(std::sin(0.3 + 1.37 * static_cast<double>(i)));
  v[300 + 17] = std::numeric_limits<float>::quiet_NaN();
  v[600 + 250] = std::numeric_limits<float>::infinity();
  return TensorData(v, Shape{4, 300});
}

/// op's outputs from inputs on device and on ndarray (its reference kernels), value for value
/// within f32 rounding (NaN equal to NaN, an infinity to the same infinity).
void expect_op_matches_ndarray(const std::string& name, const ir::Op& op,
                               const std::vector<TensorData>& inputs, const Device& device) {
  const auto run_on = [&](const Device& on) {
    ops::Handles handles;
    for (const TensorData& x : inputs)
      handles.push_back(
          ops::from_data(x, on, is_float(x.dtype()) ? TensorKind::Float : TensorKind::Int));
    std::vector<TensorData> outputs;
    for (const TensorHandle& output : tensor::run(op, handles))
      outputs.push_back(ops::into_data(output));
    return outputs;
  };
  const std::vector<TensorData> expected = run_on(Device::ndarray());
  const std::vector<TensorData> got = run_on(device);
  ASSERT_EQ(got.size(), expected.size()) << name;
  for (std::size_t k = 0; k < got.size(); ++k) {
    std::string why;
    EXPECT_TRUE(got[k].approx_equal(expected[k], Tolerance{2e-4, 2e-5}, &why))
        << name << ", output " << k << ": " << why;
  }
}

}  // namespace

void expect_fused_rows_run_on_the_device(const Device& device) {
  for (const std::vector<RowCase>& cases : {norm_cases(), cross_entropy_cases(), softmax_cases()})
    for (const RowCase& c : cases)
      expect_case_runs_on_the_device(c, device);
}

void expect_bad_target_is_an_error(const Device& device) {
  const auto on_device = [&](const TensorData& data, TensorKind kind) {
    return ops::from_data(data, device, kind);
  };
  const TensorHandle logits =
      on_device(row_values({3, 5}, 0.1).convert(DType::F32), TensorKind::Float);
  const TensorHandle bad =
      on_device(TensorData(std::vector<int64_t>{1, 7, 2}, Shape{3}), TensorKind::Int);
  const TensorHandle row_values =
      on_device(TensorData(std::vector<float>{1, 2, 3}, Shape{3}), TensorKind::Float);
  const ir::CrossEntropy loss{};
  const std::vector<std::pair<ir::Op, ops::Handles>> runs = {
      {loss, {logits, bad}}, {ir::CrossEntropyGrad{loss}, {logits, bad, row_values, row_values}}};
  for (const auto& [op, inputs] : runs) {
    try {
      ops::into_data(tensor::run(op, inputs).front());
      ADD_FAILURE() << "a target of 7 for 5 classes gave no error";
    } catch (const InvalidArgument& error) {
      EXPECT_NE(std::string(error.what()).find("target 7"), std::string::npos) << error.what();
    }
  }
}

void expect_row_specials_match_ndarray(const Device& device) {
  const TensorData x = special_rows();
  const TensorData row = TensorData(std::vector<float>(300, 0.5f), Shape{300});
  const TensorData per_row = TensorData(std::vector<float>{1, -2, 3, 0.5f}, Shape{4});
  const TensorData dy = row_values({4, 300}, 0.9).convert(DType::F32);
  const TensorData classes(std::vector<int64_t>{5, 17, 250, 3}, Shape{4});
  for (const bool rms : {false, true}) {
    const ir::LayerNorm norm{1e-5, rms, true, false};
    const auto before = shader::HostRuns::counts_so_far();
    expect_op_matches_ndarray(rms ? "rms_norm" : "layer_norm", norm, {x, row}, device);
    // The gradient op, from the host's statistics (the forward's, checked above).
    ops::Handles forward;
    for (const TensorData& input : {x, row})
      forward.push_back(ops::from_data(input, Device::ndarray(), TensorKind::Float));
    std::vector<TensorData> grad_inputs{x, row};
    const ops::Handles statistics = tensor::run(norm, forward);
    for (std::size_t k = 1; k < statistics.size(); ++k)
      grad_inputs.push_back(ops::into_data(statistics[k]));
    grad_inputs.push_back(dy);
    expect_op_matches_ndarray(rms ? "rms_norm_backward" : "layer_norm_backward",
                              ir::LayerNormGrad{norm}, grad_inputs, device);
    EXPECT_EQ(host_runs_since(before), "");
  }
  const ir::CrossEntropy loss{-100, 0.1, false};
  const auto before = shader::HostRuns::counts_so_far();
  expect_op_matches_ndarray("cross_entropy", loss, {x, classes}, device);
  const ops::Handles host_inputs{ops::from_data(x, Device::ndarray(), TensorKind::Float),
                                 ops::from_data(classes, Device::ndarray(), TensorKind::Int)};
  const ops::Handles lse = tensor::run(loss, host_inputs);
  expect_op_matches_ndarray("cross_entropy_backward", ir::CrossEntropyGrad{loss},
                            {x, classes, ops::into_data(lse[1]), per_row}, device);
  for (const bool log : {false, true})
    expect_op_matches_ndarray("softmax_backward", ir::SoftmaxGrad{{1, log}}, {x, dy}, device);
  EXPECT_EQ(host_runs_since(before), "");
}

}  // namespace ember::test
