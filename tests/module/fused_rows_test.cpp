// The fused row ops behind layer_norm, rms_norm and cross_entropy (ir::LayerNorm, ir::CrossEntropy)
// against their composites, the oracle: the public function's result and the gradients of every
// input it differentiates, along the fused path on ndarray (its reference kernels, forced), flex
// and cpu (their own kernels, the backend's choice), compared with the composite on ndarray in
// f64 from the same values rounded to the dtype. Odd row lengths (1, not a multiple of any vector
// width, long rows), every float dtype.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ember/autodiff.h"
#include "ember/ember.h"
#include "ir/ops.h"
#include "tensor/dispatch.h"
#include "tensor/fused_path.h"

namespace ember::module {
namespace {

using tensor::FusedPath;
using tensor::FusedPathScope;

/// Deterministic values in [-2, 2] (shifted by offset), in f64.
TensorData wavy(const Shape& shape, double seed, double offset = 0.0) {
  std::vector<double> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = offset + 2.0 * std::sin(seed + 1.37 * static_cast<double>(i) + 0.01 * i * i);
  return TensorData(v, shape);
}

/// inputs (f64 data, rounded to dtype) → the function's result, then every Float input's
/// gradient of sum(result * g) for a fixed g, as f64 data.
using Function = std::function<TensorHandle(const ops::Handles& inputs)>;

std::vector<TensorData> outcome(const Function& f, const std::vector<TensorData>& data,
                                const Device& device, DType dtype) {
  const Device d = device.autodiff();
  ops::Handles inputs;
  for (const TensorData& x : data) {
    const bool is_float = x.dtype() == DType::F64;
    TensorHandle h = ops::from_data(is_float ? x.convert(dtype) : x, d,
                                    is_float ? TensorKind::Float : TensorKind::Int);
    if (is_float) h = ops::require_grad(h);
    inputs.push_back(h);
  }
  const TensorHandle y = f(inputs);
  const TensorHandle g =
      ops::cast(ops::from_data(wavy(y.shape(), 0.77), d, TensorKind::Float), y.dtype());
  const Gradients grads = ops::backward(ops::sum(ops::mul(y, g)));
  std::vector<TensorData> all{ops::into_data(y).convert(DType::F64)};
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i].dtype() != DType::F64) continue;
    all.push_back(ops::into_data(*grads.get(inputs[i])).convert(DType::F64));
  }
  return all;
}

Tolerance tolerance(DType dtype) {
  switch (dtype) {
    case DType::F64:
      return {1e-9, 1e-10};
    case DType::F32:
      return {2e-4, 2e-5};
    default:
      return {5e-2, 5e-2};
  }
}

/// f along the fused path on device (forced on ndarray) against the composite on ndarray in f64.
void expect_fused_matches(const std::string& name, const Function& f,
                          const std::vector<TensorData>& data) {
  const Device oracle = Device::ndarray();
  for (const DType dtype : {DType::F64, DType::F32, DType::BF16, DType::F16}) {
    std::vector<TensorData> rounded;
    for (const TensorData& x : data)
      rounded.push_back(x.dtype() == DType::F64 ? x.convert(dtype).convert(DType::F64) : x);
    std::vector<TensorData> expected;
    {
      const FusedPathScope scope(FusedPath::Composite);
      expected = outcome(f, rounded, oracle, DType::F64);
    }
    for (const Device& device : {Device::ndarray(), Device::flex(), Device::cpu()}) {
      const FusedPathScope scope(device == oracle ? FusedPath::Fused : FusedPath::Backend);
      const std::vector<TensorData> got = outcome(f, rounded, device, dtype);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        std::string why;
        EXPECT_TRUE(got[k].approx_equal(expected[k], tolerance(dtype), &why))
            << name << " on " << device << " in " << dtype << ", output " << k << ": " << why;
      }
    }
  }
}

const std::vector<Shape> kRowShapes{{3, 5}, {4, 1}, {2, 3, 17}, {5, 67}, {3, 1000}, {70, 33}};

TEST(FusedRows, LayerNormMatchesTheComposite) {
  for (const Shape& shape : kRowShapes) {
    const int64_t n = shape.dims().back();
    const TensorData x = wavy(shape, 0.3, 0.5);
    const TensorData w = wavy({n}, 1.1, 1.0);
    const TensorData b = wavy({n}, 2.3);
    expect_fused_matches(
        "layer_norm affine",
        [n](const ops::Handles& in) { return ops::layer_norm(in[0], {n}, in[1], in[2], 1e-5); },
        {x, w, b});
    expect_fused_matches("layer_norm weight",
                         [n](const ops::Handles& in) {
                           return ops::layer_norm(in[0], {n}, in[1], std::nullopt, 1e-3);
                         },
                         {x, w});
    expect_fused_matches("layer_norm plain",
                         [n](const ops::Handles& in) {
                           return ops::layer_norm(in[0], {n}, std::nullopt, std::nullopt, 1e-5);
                         },
                         {x});
  }
}

TEST(FusedRows, LayerNormOverSeveralTrailingDims) {
  const TensorData x = wavy({2, 3, 4, 5}, 0.9);
  const TensorData w = wavy({4, 5}, 0.4, 1.0);
  const TensorData b = wavy({4, 5}, 0.6);
  expect_fused_matches("layer_norm [4, 5]",
                       [](const ops::Handles& in) {
                         return ops::layer_norm(in[0], {4, 5}, in[1], in[2], 1e-5);
                       },
                       {x, w, b});
}

TEST(FusedRows, RmsNormMatchesTheComposite) {
  for (const Shape& shape : kRowShapes) {
    const int64_t n = shape.dims().back();
    const TensorData x = wavy(shape, 0.7, 0.25);
    const TensorData w = wavy({n}, 1.9, 1.0);
    expect_fused_matches(
        "rms_norm weight",
        [n](const ops::Handles& in) { return ops::rms_norm(in[0], {n}, in[1], 1e-6); }, {x, w});
    expect_fused_matches(
        "rms_norm plain",
        [n](const ops::Handles& in) { return ops::rms_norm(in[0], {n}, std::nullopt, 1e-5); }, {x});
  }
}

/// Targets in [0, classes) for rows rows, every third one ignore_index when ignore.
TensorData targets(int64_t rows, int64_t classes, bool ignore) {
  std::vector<int64_t> t(static_cast<std::size_t>(rows));
  for (int64_t i = 0; i < rows; ++i)
    t[static_cast<std::size_t>(i)] = ignore && i % 3 == 1 ? -100 : (i * 7 + 3) % classes;
  return TensorData(t, Shape{rows});
}

TEST(FusedRows, CrossEntropyMatchesTheComposite) {
  for (const Shape& shape : kRowShapes) {
    if (shape.rank() != 2) continue;
    const int64_t rows = shape[0];
    const int64_t classes = shape[1];
    const TensorData logits = wavy(shape, 0.2);
    const TensorData weight = wavy({classes}, 0.8, 2.5).convert(DType::F64);
    for (const Reduction reduction : {Reduction::Mean, Reduction::Sum, Reduction::None}) {
      for (const double smoothing : {0.0, 0.1}) {
        for (const bool ignore : {false, true}) {
          const TensorData t = targets(rows, classes, ignore && rows > 1);
          const std::string name = "cross_entropy " + std::to_string(classes) + " classes, s " +
                                   std::to_string(smoothing) + (ignore ? ", ignored" : "");
          expect_fused_matches(name,
                               [=](const ops::Handles& in) {
                                 return ops::cross_entropy(in[0], in[1], std::nullopt, reduction,
                                                           smoothing);
                               },
                               {logits, t});
          // Class weights as a constant (Int-like: no gradient asked), through the fused op.
          expect_fused_matches(name + ", weighted",
                               [=](const ops::Handles& in) {
                                 const TensorHandle w = ops::cast(
                                     ops::from_data(weight, in[0].device(), TensorKind::Float),
                                     in[0].dtype());
                                 return ops::cross_entropy(in[0], in[1], w, reduction, smoothing);
                               },
                               {logits, t});
        }
      }
    }
  }
}

TEST(FusedRows, CrossEntropyOverSpatialPositions) {
  const TensorData logits = wavy({2, 5, 3, 4}, 0.5);
  std::vector<int64_t> t(24);
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = static_cast<int64_t>(i * 3 % 5);
  expect_fused_matches("cross_entropy [2, 5, 3, 4]",
                       [](const ops::Handles& in) {
                         return ops::cross_entropy(in[0], in[1], std::nullopt, Reduction::Mean,
                                                   0.05);
                       },
                       {logits, TensorData(t, Shape{2, 3, 4})});
}

// softmax's backward rule emits ir::SoftmaxGrad along the last dim on flex and cpu (and on
// ndarray, forced); along another dim flex runs the composite.
TEST(FusedRows, SoftmaxGradientMatchesTheComposite) {
  for (const Shape& shape : kRowShapes) {
    const TensorData x = wavy(shape, 0.45);
    for (int64_t dim = 0; dim < static_cast<int64_t>(shape.rank()); ++dim) {
      const std::string at =
          " along dim " + std::to_string(dim) + " of " + std::to_string(shape.rank());
      expect_fused_matches("softmax" + at,
                           [dim](const ops::Handles& in) { return ops::softmax(in[0], dim); }, {x});
      expect_fused_matches("log_softmax" + at,
                           [dim](const ops::Handles& in) { return ops::log_softmax(in[0], dim); },
                           {x});
    }
  }
}

/// f on flex in f32 against ndarray's reference kernels (forced fused path) in f32.
void expect_flex_matches_ndarray(const std::string& name, const Function& f,
                                 const std::vector<TensorData>& data) {
  std::vector<TensorData> expected;
  {
    const FusedPathScope scope(FusedPath::Fused);
    expected = outcome(f, data, Device::ndarray(), DType::F32);
  }
  const std::vector<TensorData> got = outcome(f, data, Device::flex(), DType::F32);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    std::string why;
    EXPECT_TRUE(got[k].approx_equal(expected[k], tolerance(DType::F32), &why))
        << name << ", output " << k << ": " << why;
  }
}

// Rows whose input and result are larger than the caches: flex writes them with streaming stores
// from the first aligned element of each row (4099 values: rows start misaligned).
TEST(FusedRows, LargeTensorsStreamTheirResults) {
  const Shape shape{1100, 4099};
  const TensorData x = wavy(shape, 0.1, 0.3);
  const TensorData w = wavy({4099}, 0.2, 1.0);
  const TensorData b = wavy({4099}, 0.5);
  expect_flex_matches_ndarray(
      "layer_norm",
      [](const ops::Handles& in) { return ops::layer_norm(in[0], {4099}, in[1], in[2], 1e-5); },
      {x, w, b});
  expect_flex_matches_ndarray("cross_entropy",
                              [](const ops::Handles& in) {
                                return ops::cross_entropy(in[0], in[1], std::nullopt,
                                                          Reduction::Sum, 0.1);
                              },
                              {x, targets(1100, 4099, true)});
  expect_flex_matches_ndarray(
      "log_softmax", [](const ops::Handles& in) { return ops::log_softmax(in[0], 1); }, {x});
}

/// The gradients of x and weight through layer_norm, rms_norm and cross_entropy (fused on cpu) of
/// a small network, on device (autodiff on), as f64 data.
std::vector<TensorData> network_gradients(const Device& device) {
  const TensorHandle x =
      ops::require_grad(ops::from_data(wavy({6, 9}, 0.3), device, TensorKind::Float));
  const TensorHandle w =
      ops::require_grad(ops::from_data(wavy({9}, 0.6, 1.0), device, TensorKind::Float));
  const TensorHandle t = ops::from_data(targets(6, 9, false), device, TensorKind::Int);
  const TensorHandle h = ops::exp(ops::layer_norm(x, {9}, w, std::nullopt, 1e-5));
  const TensorHandle logits = ops::rms_norm(ops::mul(h, h), {9}, w, 1e-6);
  const Gradients grads =
      ops::backward(ops::cross_entropy(logits, t, std::nullopt, Reduction::Mean, 0.1));
  return {ops::into_data(*grads.get(x)), ops::into_data(*grads.get(w))};
}

// Balanced checkpointing keeps the fused ops' inputs and outputs (compute-bound rules) and
// recomputes the elementwise ops between them: the same gradients bit for bit.
TEST(FusedRows, CheckpointingGivesTheSameGradients) {
  const Device cpu = Device::cpu().autodiff();
  const std::vector<TensorData> disabled = network_gradients(cpu);
  const std::vector<TensorData> balanced = network_gradients(cpu.gradient_checkpointing());
  ASSERT_EQ(disabled.size(), balanced.size());
  for (std::size_t k = 0; k < disabled.size(); ++k)
    EXPECT_EQ(disabled[k], balanced[k]) << "gradient " << k;
}

TEST(FusedRows, CrossEntropyRefusesATargetOutOfRange) {
  const Device device = Device::ndarray();
  const FusedPathScope scope(FusedPath::Fused);
  const TensorHandle logits = ops::from_data(wavy({2, 3}, 0.1), device, TensorKind::Float);
  const TensorHandle t =
      ops::from_data(TensorData(std::vector<int64_t>{0, 3}, Shape{2}), device, TensorKind::Int);
  EXPECT_THROW(ops::cross_entropy(logits, t, std::nullopt, Reduction::Mean, 0.0), InvalidArgument);
  const ir::CrossEntropy op{-100, 0.0, false};
  EXPECT_THROW(tensor::run(op, ops::Handles{logits, t}), InvalidArgument);
}

}  // namespace
}  // namespace ember::module
