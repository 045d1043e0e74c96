// Convolutions of the reference backend: hand-computed cases, a naive reference written from
// the definitions (it scatters each input element through each kernel position, where the
// kernel gathers per output position), the adjoint identities
//   <conv(x, w), y> = <x, conv_transpose(y, w)> = <w, conv_weight_grad(x, y)>,
// and empty operands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

using Dims = std::vector<int64_t>;

ir::ConvGeometry geometry(Dims stride, Dims padding, Dims dilation, Dims output_padding = {},
                          int64_t groups = 1, bool transposed = false) {
  if (output_padding.empty()) output_padding.assign(stride.size(), 0);
  return {
      std::move(stride), std::move(padding), std::move(dilation), std::move(output_padding), groups,
      transposed};
}

/// stride 1, padding 0, dilation 1 in each of n spatial dims.
ir::ConvGeometry unit(std::size_t n, bool transposed = false) {
  return geometry(Dims(n, 1), Dims(n, 0), Dims(n, 1), {}, 1, transposed);
}

/// Uniform values in [-1, 1], the same for a given seed.
TensorData random_data(const Shape& shape, unsigned seed, DType dtype = DType::F64) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (double& v : values)
    v = uniform(engine);
  return TensorData(values, shape, dtype);
}

// ---- the naive reference ---------------------------------------------------------------------

/// Every multi-index of a box of extents, in row-major order.
std::vector<Dims> all_indices(const Dims& extents) {
  std::vector<Dims> indices{Dims{}};
  for (int64_t extent : extents) {
    std::vector<Dims> longer;
    for (const Dims& prefix : indices) {
      for (int64_t i = 0; i < extent; ++i) {
        longer.push_back(prefix);
        longer.back().push_back(i);
      }
    }
    indices = std::move(longer);
  }
  return indices;
}

/// The row-major flat offset of [leading..., index...] in shape.
int64_t flat(const Shape& shape, const Dims& leading, const Dims& index) {
  Dims full = leading;
  full.insert(full.end(), index.begin(), index.end());
  int64_t offset = 0;
  for (std::size_t d = 0; d < full.size(); ++d)
    offset = offset * shape[d] + full[d];
  return offset;
}

Dims spatial_extents(const Shape& shape) {
  return Dims(shape.dims().begin() + 2, shape.dims().end());
}

/// One term x[x_offset] * weight[weight_offset] of output element out_offset.
struct Term {
  int64_t x_offset;
  int64_t weight_offset;
  int64_t out_offset;
};

/// Every term of the convolution of x with weight into out (shapes), straight from the
/// definitions: input position i, kernel position k and output position o meet where
/// i = o s - p + k d (convolution) or o = i s - p + k d (transposed convolution).
std::vector<Term> all_terms(const ir::ConvGeometry& g, const Shape& x, const Shape& weight,
                            const Shape& out) {
  const int64_t in_per_group = x[1] / g.groups;
  const int64_t out_per_group = out[1] / g.groups;
  std::vector<Term> terms;
  for (int64_t n = 0; n < x[0]; ++n)
    for (int64_t ci = 0; ci < x[1]; ++ci)
      for (int64_t local_co = 0; local_co < out_per_group; ++local_co)
        for (const Dims& i : all_indices(spatial_extents(x)))
          for (const Dims& k : all_indices(spatial_extents(weight))) {
            const int64_t group = ci / in_per_group;
            const int64_t co = group * out_per_group + local_co;
            Dims o(i.size());
            bool inside = true;
            for (std::size_t d = 0; d < i.size(); ++d) {
              const int64_t moved = g.transposed
                                        ? i[d] * g.stride[d] - g.padding[d] + k[d] * g.dilation[d]
                                        : i[d] + g.padding[d] - k[d] * g.dilation[d];
              if (!g.transposed && moved % g.stride[d] != 0) inside = false;
              o[d] = g.transposed ? moved : moved / g.stride[d];
              if (moved < 0 || o[d] >= out[d + 2]) inside = false;
            }
            if (!inside) continue;
            const Dims weight_lead =
                g.transposed ? Dims{ci, local_co} : Dims{co, ci - group * in_per_group};
            terms.push_back(
                {flat(x, {n, ci}, i), flat(weight, weight_lead, k), flat(out, {n, co}, o)});
          }
  return terms;
}

/// The convolution by the definition, in double.
std::vector<double> reference_conv(const ir::ConvGeometry& g, const TensorData& x,
                                   const TensorData& weight, const TensorData* bias,
                                   const Shape& out) {
  std::vector<double> result(static_cast<std::size_t>(out.num_elements()), 0.0);
  const std::vector<double> xs = x.to_vector<double>();
  const std::vector<double> ws = weight.to_vector<double>();
  for (const Term& t : all_terms(g, x.shape(), weight.shape(), out))
    result[t.out_offset] += xs[t.x_offset] * ws[t.weight_offset];
  if (bias) {
    const std::vector<double> bs = bias->to_vector<double>();
    const int64_t volume = out.num_elements() / (out[0] * out[1]);
    for (std::size_t e = 0; e < result.size(); ++e)
      result[e] += bs[e / volume % out[1]];
  }
  return result;
}

/// The weight gradient by the definition: the sum of x * grad_output over the terms.
std::vector<double> reference_weight_grad(const ir::ConvGeometry& g, const TensorData& x,
                                          const TensorData& grad, const Shape& weight) {
  std::vector<double> result(static_cast<std::size_t>(weight.num_elements()), 0.0);
  const std::vector<double> xs = x.to_vector<double>();
  const std::vector<double> gs = grad.to_vector<double>();
  for (const Term& t : all_terms(g, x.shape(), weight, grad.shape()))
    result[t.weight_offset] += xs[t.x_offset] * gs[t.out_offset];
  return result;
}

void expect_near_all(const TensorData& actual, const std::vector<double>& expected, double tol) {
  const std::vector<double> values = actual.to_vector<double>();
  ASSERT_EQ(values.size(), expected.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_NEAR(values[i], expected[i], tol * (1.0 + std::abs(expected[i]))) << "element " << i;
}

/// The sum over x's elements of x[index] * y[index]; y may extend past x in any dim.
double dot_over(const TensorData& x, const TensorData& y) {
  const std::vector<double> xs = x.to_vector<double>();
  const std::vector<double> ys = y.to_vector<double>();
  double sum = 0.0;
  for (const Dims& index : all_indices(x.shape().dims()))
    sum += xs[flat(x.shape(), {}, index)] * ys[flat(y.shape(), {}, index)];
  return sum;
}

/// A convolution case: geometry and the shapes of x and the weight.
struct ConvCase {
  const char* name;
  ir::ConvGeometry geometry;
  Shape x;
  Shape weight;
};

std::vector<ConvCase> conv_cases() {
  return {
      {"1d", unit(1), {2, 3, 7}, {4, 3, 3}},
      {"1d/stride_padding_dilation", geometry({2}, {2}, {2}), {1, 2, 9}, {3, 2, 3}},
      {"2d/mixed", geometry({2, 1}, {1, 0}, {1, 2}), {2, 3, 5, 7}, {4, 3, 3, 2}},
      {"2d/groups", geometry({1, 2}, {1, 1}, {1, 1}, {}, 2), {1, 4, 4, 6}, {6, 2, 2, 3}},
      {"2d/depthwise", geometry({1, 1}, {1, 1}, {1, 1}, {}, 3), {2, 3, 3, 3}, {3, 1, 3, 3}},
      {"3d", geometry({1, 2, 1}, {0, 1, 1}, {1, 1, 2}), {1, 2, 3, 4, 5}, {2, 2, 2, 3, 2}},
      {"transpose1d", geometry({2}, {1}, {1}, {1}, 1, true), {2, 3, 4}, {3, 2, 3}},
      {"transpose1d/dilated_output_padding",
       geometry({1}, {0}, {3}, {2}, 1, true),
       {1, 1, 3},
       {1, 2, 2}},
      {"transpose2d/groups",
       geometry({2, 3}, {1, 0}, {1, 2}, {1, 2}, 2, true),
       {2, 4, 3, 2},
       {4, 3, 2, 2}},
      {"transpose3d",
       geometry({2, 1, 2}, {0, 1, 1}, {1, 2, 1}, {1, 0, 0}, 1, true),
       {1, 2, 2, 3, 2},
       {2, 3, 2, 2, 3}},
  };
}

// ---- tests -------------------------------------------------------------------------------------

TEST(NdArrayConv, Conv1dByHand) {
  // [1, 2, 3, 4] with kernel [1, 10]: 1 + 20, 2 + 30, 3 + 40.
  const TensorData x(std::vector<float>{1, 2, 3, 4}, {1, 1, 4});
  const TensorData w(std::vector<float>{1, 10}, {1, 1, 2});
  expect_data<float>(run(ir::Conv{unit(1)}, {x, w}), {1, 1, 3}, {21, 32, 43});
  // Padding 1, stride 2 over [0, 1, 2, 3, 4, 0]: windows [0, 1], [2, 3], [4, 0] → 10, 32, 4.
  expect_data<float>(run(ir::Conv{geometry({2}, {1}, {1})}, {x, w}), {1, 1, 3}, {10, 32, 4});
  // Dilation 2: [1, 3] and [2, 4] → 1 + 30, 2 + 40; plus bias 0.5.
  const TensorData bias(std::vector<float>{0.5f}, {1});
  expect_data<float>(run(ir::Conv{geometry({1}, {0}, {2})}, {x, w, bias}), {1, 1, 2},
                     {31.5f, 42.5f});
}

TEST(NdArrayConv, Conv2dGroupsByHand) {
  // Two channels [[1, 2], [3, 4]] and [[5, 6], [7, 8]]; groups 2 with 1x1 kernels 2 and 3 scale
  // each channel on its own.
  const TensorData x(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 2, 2});
  const TensorData w(std::vector<double>{2, 3}, {2, 1, 1, 1});
  expect_data<double>(run(ir::Conv{geometry({1, 1}, {0, 0}, {1, 1}, {}, 2)}, {x, w}), {1, 2, 2, 2},
                      {2, 4, 6, 8, 15, 18, 21, 24});
  // groups 1 with a [1, 2, 2, 2] kernel of ones: the sum of all 8 values, 36.
  const TensorData ones(std::vector<double>(8, 1.0), {1, 2, 2, 2});
  expect_data<double>(run(ir::Conv{unit(2)}, {x, ones}), {1, 1, 1, 1}, {36});
}

TEST(NdArrayConv, ConvTranspose1dByHand) {
  // Each input scatters the kernel [1, 10, 100] from position 2i: [1, 10, 100] + [_, _, 2, 20,
  // 200] = [1, 10, 102, 20, 200]; bias 0.5.
  const TensorData x(std::vector<float>{1, 2}, {1, 1, 2});
  const TensorData w(std::vector<float>{1, 10, 100}, {1, 1, 3});
  const TensorData bias(std::vector<float>{0.5f}, {1});
  expect_data<float>(run(ir::Conv{geometry({2}, {0}, {1}, {0}, 1, true)}, {x, w, bias}), {1, 1, 5},
                     {1.5f, 10.5f, 102.5f, 20.5f, 200.5f});
  // output_padding 1 extends that to [1, 10, 102, 20, 200, 0]; padding 1 then removes one
  // output from each end.
  expect_data<float>(run(ir::Conv{geometry({2}, {1}, {1}, {1}, 1, true)}, {x, w}), {1, 1, 4},
                     {10, 102, 20, 200});
}

TEST(NdArrayConv, WeightGradByHand) {
  // Forward [1, 2, 3] * [k0, k1] → 2 outputs; with grad_output [1, 1]: dk0 = 1 + 2, dk1 = 2 + 3.
  const TensorData x(std::vector<double>{1, 2, 3}, {1, 1, 3});
  const TensorData g(std::vector<double>{1, 1}, {1, 1, 2});
  expect_data<double>(run(ir::ConvWeightGrad{unit(1), Shape{1, 1, 2}}, {x, g}), {1, 1, 2}, {3, 5});
  // Transposed, stride 2: out[2i + k] += x[i] w[k], so dw[k] = sum_i x[i] g[2i + k];
  // x = [1, 2], g = [1, 10, 100, 1000]: dw0 = 1 + 200, dw1 = 10 + 2000.
  const TensorData xt(std::vector<double>{1, 2}, {1, 1, 2});
  const TensorData gt(std::vector<double>{1, 10, 100, 1000}, {1, 1, 4});
  expect_data<double>(
      run(ir::ConvWeightGrad{geometry({2}, {0}, {1}, {0}, 1, true), Shape{1, 1, 2}}, {xt, gt}),
      {1, 1, 2}, {201, 2010});
}

TEST(NdArrayConv, HalfDtypesComputeInFloat) {
  // 1 + 20 etc. are exact in f16 and bf16.
  for (DType dtype : {DType::F16, DType::BF16}) {
    const TensorData x(std::vector<double>{1, 2, 3, 4}, {1, 1, 4}, dtype);
    const TensorData w(std::vector<double>{1, 10}, {1, 1, 2}, dtype);
    const TensorData out = run(ir::Conv{unit(1)}, {x, w});
    EXPECT_EQ(out.dtype(), dtype);
    EXPECT_EQ(out.to_vector<double>(), (std::vector<double>{21, 32, 43}));
  }
}

TEST(NdArrayConv, MatchesTheDefinition) {
  unsigned seed = 1;
  for (const ConvCase& c : conv_cases()) {
    SCOPED_TRACE(c.name);
    const TensorData x = random_data(c.x, seed++);
    const TensorData w = random_data(c.weight, seed++);
    const ir::Conv op{c.geometry};
    const TensorData out = run(op, {x, w});
    expect_near_all(out, reference_conv(c.geometry, x, w, nullptr, out.shape()), 1e-12);
    const TensorData bias = random_data(Shape{out.shape()[1]}, seed++);
    expect_near_all(run(op, {x, w, bias}), reference_conv(c.geometry, x, w, &bias, out.shape()),
                    1e-12);
  }
}

TEST(NdArrayConv, F32MatchesTheDefinitionClosely) {
  unsigned seed = 100;
  for (const ConvCase& c : conv_cases()) {
    SCOPED_TRACE(c.name);
    const TensorData x = random_data(c.x, seed++, DType::F32);
    const TensorData w = random_data(c.weight, seed++, DType::F32);
    const TensorData out = run(ir::Conv{c.geometry}, {x, w});
    EXPECT_EQ(out.dtype(), DType::F32);
    expect_near_all(out, reference_conv(c.geometry, x, w, nullptr, out.shape()), 1e-5);
  }
}

TEST(NdArrayConv, WeightGradMatchesTheDefinition) {
  unsigned seed = 200;
  for (const ConvCase& c : conv_cases()) {
    SCOPED_TRACE(c.name);
    const TensorData x = random_data(c.x, seed++);
    const std::vector<ir::TensorMeta> metas{{c.x, DType::F64}, {c.weight, DType::F64}};
    const Shape out = ir::infer(ir::Conv{c.geometry}, metas).front().shape;
    const TensorData g = random_data(out, seed++);
    const TensorData dw = run(ir::ConvWeightGrad{c.geometry, c.weight}, {x, g});
    EXPECT_EQ(dw.shape(), c.weight);
    expect_near_all(dw, reference_weight_grad(c.geometry, x, g, c.weight), 1e-12);
  }
}

/// The geometry of the other direction, whose output covers x: a transposed convolution gets
/// back, as output_padding, the trailing inputs the convolution's floor dropped; a convolution
/// undoing a transposed one with output_padding >= stride covers more than x.
ir::ConvGeometry adjoint_geometry(const ConvCase& c, const Shape& out) {
  ir::ConvGeometry adjoint = c.geometry;
  adjoint.transposed = !c.geometry.transposed;
  for (std::size_t d = 0; d < adjoint.output_padding.size(); ++d) {
    const ir::ConvGeometry& g = c.geometry;
    adjoint.output_padding[d] =
        g.transposed ? 0
                     : c.x[d + 2] - ((out[d + 2] - 1) * g.stride[d] - 2 * g.padding[d] +
                                     g.dilation[d] * (c.weight[d + 2] - 1) + 1);
  }
  return adjoint;
}

TEST(NdArrayConv, TransposedIsTheAdjoint) {
  unsigned seed = 300;
  for (const ConvCase& c : conv_cases()) {
    SCOPED_TRACE(c.name);
    const TensorData x = random_data(c.x, seed++);
    const TensorData w = random_data(c.weight, seed++);
    const TensorData out = run(ir::Conv{c.geometry}, {x, w});
    const TensorData y = random_data(out.shape(), seed++);
    const double forward = dot_over(out, y);
    const TensorData back = run(ir::Conv{adjoint_geometry(c, out.shape())}, {y, w});
    if (!c.geometry.transposed) {
      EXPECT_EQ(back.shape(), c.x);
    }
    EXPECT_NEAR(forward, dot_over(x, back), 1e-12 * (1.0 + std::abs(forward)));
    // <conv(x, w), y> is also linear in w: <w, conv_weight_grad(x, y)>.
    const TensorData dw = run(ir::ConvWeightGrad{c.geometry, c.weight}, {x, y});
    EXPECT_NEAR(forward, dot_over(w, dw), 1e-12 * (1.0 + std::abs(forward)));
  }
}

TEST(NdArrayConv, EmptyOperands) {
  // No samples: an empty output of the right shape.
  const TensorData none(std::vector<float>{}, {0, 1, 4});
  const TensorData w(std::vector<float>{1, 1}, {2, 1, 1});
  expect_data<float>(run(ir::Conv{unit(1)}, {none, w}), {0, 2, 4}, {});
  // No input channels, or an input covered by padding only: the output is the bias.
  const TensorData no_channels(std::vector<float>{}, {1, 0, 2});
  const TensorData empty_w(std::vector<float>{}, {2, 0, 1});
  const TensorData bias(std::vector<float>{1.5f, -2}, {2});
  expect_data<float>(run(ir::Conv{unit(1)}, {no_channels, empty_w, bias}), {1, 2, 2},
                     {1.5f, 1.5f, -2, -2});
  const TensorData no_positions(std::vector<float>{}, {1, 1, 0});
  expect_data<float>(run(ir::Conv{geometry({1}, {1}, {1})}, {no_positions, w, bias}), {1, 2, 2},
                     {1.5f, 1.5f, -2, -2});
  // Their weight gradients are zeros.
  expect_data<float>(run(ir::ConvWeightGrad{unit(1), Shape{2, 1, 1}},
                         {none, TensorData(std::vector<float>{}, {0, 2, 4})}),
                     {2, 1, 1}, {0, 0});
}

}  // namespace
}  // namespace ember::ndarray::test
