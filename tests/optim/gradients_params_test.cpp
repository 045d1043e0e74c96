// GradientsParams (gradients by param name, from a backward pass) and GradientsAccumulator.
#include <optional>
#include <string>
#include <vector>

#include "optim_test_util.h"

namespace ember::optim::test {
namespace {

struct TwoLayers {
  nn::Linear first;
  nn::Linear second;
  EMBER_MODULE(first, second)
};

std::vector<std::string> names_of(const GradientsParams& grads) {
  std::vector<std::string> names;
  for (const auto& [name, grad] : grads)
    names.push_back(name);
  return names;
}

TEST(GradientsParams, FromTakesEachReachedTrainableParamsGradientByName) {
  TwoLayers model{small_linear(), small_linear()};
  nn::freeze(model, "first.bias");
  // Only `first` is used: `second` gets no gradient.
  const Tensor<2> x(f64({1.0, 2.0, 3.0, -1.0, 0.5, 4.0}, {2, 3}));
  const Gradients grads = model.first.forward(x).sum().backward();
  const GradientsParams params = GradientsParams::from(model, grads);
  EXPECT_EQ(names_of(params), std::vector<std::string>{"first.weight"});
  // d sum(x W^T + b) / dW[i, j] = sum over rows of x[:, j].
  EXPECT_EQ(values<double>(*params.get("first.weight")),
            (std::vector<double>{0.0, 2.5, 7.0, 0.0, 2.5, 7.0}));
}

TEST(GradientsParams, GetRemoveInsertAndSize) {
  GradientsParams grads;
  EXPECT_TRUE(grads.empty());
  grads.insert("a", f64({1.0}, {1}));
  grads.insert("b", f64({2.0, 3.0}, {2}));
  grads.insert("a", f64({4.0}, {1}));  // replaces
  EXPECT_EQ(grads.size(), 2u);
  EXPECT_EQ(values<double>(*grads.get("a")), std::vector<double>{4.0});
  EXPECT_FALSE(grads.get("c").has_value());
  const std::optional<TensorHandle> b = grads.remove("b");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(values<double>(*b), (std::vector<double>{2.0, 3.0}));
  EXPECT_FALSE(grads.remove("b").has_value());
  EXPECT_EQ(grads.size(), 1u);
}

TEST(GradientsParams, InsertDetachesAndRejectsNonFloatTensors) {
  GradientsParams grads;
  const TensorHandle tracked = ops::mul_scalar(ops::require_grad(f64({1.0}, {1})), 2.0);
  grads.insert("a", tracked);
  EXPECT_FALSE(ops::is_tracked(*grads.get("a")));
  EXPECT_INVALID(grads.insert("i", ops::cast(f64({1.0}, {1}), DType::I64)),
                 "[GradientsParams] gradient of i must be a Float tensor, got [1] (i64)");
  EXPECT_INVALID(grads.insert("u", TensorHandle()), "[GradientsParams] undefined gradient for u");
}

GradientsParams single(const std::string& name, const std::vector<double>& values) {
  GradientsParams grads;
  grads.insert(name, f64(values, {static_cast<int64_t>(values.size())}));
  return grads;
}

TEST(GradientsAccumulator, SumsByNameAndCounts) {
  GradientsAccumulator accumulator;
  accumulator.add(single("a", {1.0, 2.0}));
  GradientsParams second = single("a", {0.5, -4.0});
  second.insert("b", f64({3.0}, {1}));
  accumulator.add(second);
  EXPECT_EQ(accumulator.count(), 2);
  const GradientsParams sums = accumulator.take();
  EXPECT_EQ(values<double>(*sums.get("a")), (std::vector<double>{1.5, -2.0}));
  EXPECT_EQ(values<double>(*sums.get("b")), std::vector<double>{3.0});
  // take starts afresh.
  EXPECT_EQ(accumulator.count(), 0);
  EXPECT_TRUE(accumulator.take().empty());
}

TEST(GradientsAccumulator, AMismatchedGradientAddsNothing) {
  GradientsAccumulator accumulator;
  accumulator.add(single("a", {1.0, 2.0}));
  GradientsParams bad = single("b", {5.0});
  bad.insert("a", f64({1.0, 2.0, 3.0}, {3}));
  EXPECT_INVALID(accumulator.add(bad),
                 "[GradientsAccumulator] gradient of a is [3] (f64) but its sum is [2] (f64)");
  EXPECT_EQ(accumulator.count(), 1);
  const GradientsParams sums = accumulator.take();
  EXPECT_EQ(sums.size(), 1u);
  EXPECT_EQ(values<double>(*sums.get("a")), (std::vector<double>{1.0, 2.0}));
}

TEST(GradientsAccumulator, AccumulatedHalvesEqualTheWholeBatchGradient) {
  nn::Linear model = small_linear();
  const std::vector<double> x = {1.0, 2.0, 3.0, -1.0, 0.5, 4.0, 2.0, 0.0, -3.0, 1.5, 1.0, 1.0};
  const Tensor<2> batch(f64(x, {4, 3}));
  auto loss = [&](const Tensor<2>& input) {
    const Tensor<2> y = model.forward(input);
    return y.mul(y).sum().div_scalar(4.0);  // the whole batch's mean over 4 rows
  };
  const GradientsParams whole = GradientsParams::from(model, loss(batch).backward());
  GradientsAccumulator accumulator;
  for (int64_t half : {0, 1}) {
    const Tensor<2> rows = batch.narrow(0, 2 * half, 2);
    accumulator.add(GradientsParams::from(model, loss(rows).backward()));
  }
  const GradientsParams summed = accumulator.take();
  for (const auto& [name, grad] : whole) {
    std::string why;
    EXPECT_TRUE(ops::into_data(*summed.get(name))
                    .approx_equal(ops::into_data(grad), Tolerance{1e-12, 1e-12}, &why))
        << name << ": " << why;
  }
}

}  // namespace
}  // namespace ember::optim::test
