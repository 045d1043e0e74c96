// Values of the module functions against hand computations and NumPy (following PyTorch's
// definitions of torch.nn.functional; PyTorch itself is not available here). Each NumPy
// expectation has the snippet that computed it next to it (np = numpy, f64).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "module/module_test_util.h"

namespace ember::test {
namespace {

using module::Reduction;

TEST(Linear, MatchesHandComputation) {
  const Tensor<2> x = f64_tensor<2>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const Tensor<2> w = f64_tensor<2>({1, 0, -1, 0.5, 0.5, 0.5}, Shape{2, 3});
  const Tensor<1> b = f64_tensor<1>({1, -1}, Shape{2});
  // [1 - 3 + 1, 0.5 * 6 - 1], [4 - 6 + 1, 0.5 * 15 - 1]
  expect_values(module::linear(x, w, b), {-1, 2, -1, 6.5});
  expect_values(module::linear(x, w), {-2, 3, -2, 7.5});
}

TEST(Linear, KeepsLeadingDims) {
  const Tensor<3> x = f64_tensor<3>({1, 2, 3, 4, 5, 6}, Shape{2, 1, 3});
  const Tensor<2> w = f64_tensor<2>({1, 0, -1, 0.5, 0.5, 0.5}, Shape{2, 3});
  const Tensor<3> y = module::linear(x, w);
  EXPECT_EQ(y.shape(), (Shape{2, 1, 2}));
  expect_values(y, {-2, 3, -2, 7.5});
}

TEST(Embedding, GathersRowsIntoIndicesShape) {
  const Tensor<2> w = f64_tensor<2>({0, 1, 2, 3, 4, 5}, Shape{3, 2});
  const Tensor<3> y = module::embedding(w, i64_tensor<2>({2, 0, 1, 2}, Shape{2, 2}));
  EXPECT_EQ(y.shape(), (Shape{2, 2, 2}));
  expect_values(y, {4, 5, 0, 1, 2, 3, 4, 5});
}

TEST(LayerNorm, LastDimWithAffine) {
  const Tensor<2> x = f64_tensor<2>({1, 2, 3, 2, 4, 8}, Shape{2, 3});
  const Tensor<1> w = f64_tensor<1>({1, 2, 0.5}, Shape{3});
  const Tensor<1> b = f64_tensor<1>({0, 1, -1}, Shape{3});
  // m = x.mean(-1, keepdims=True); v = x.var(-1, keepdims=True); (x - m) / np.sqrt(v + 1e-5) * w +
  // b
  expect_values(module::layer_norm(x, {3}, w, b),
                {-1.2247356859083902, 1.0, -0.3876321570458049, -1.0690441085967413,
                 0.46547794570162915, -0.3318474321270368});
}

TEST(LayerNorm, TwoTrailingDims) {
  const Tensor<3> x = f64_tensor<3>({1, 3, -2, 0.5, 4, 4, 1, -1}, Shape{2, 2, 2});
  // r = x.reshape(2, 4); (r - r.mean(1, keepdims=True)) / np.sqrt(r.var(1, keepdims=True) + 1e-5)
  expect_values(module::layer_norm<2>(x, {2, 2}),
                {0.2105583899886371, 1.333536469928035, -1.4739087299204596, -0.07018612999621236,
                 0.9428079940182076, 0.9428079940182076, -0.4714039970091038, -1.4142119910273114});
}

TEST(RmsNorm, WithWeight) {
  const Tensor<2> x = f64_tensor<2>({1, 2, 3, 2, 4, 8}, Shape{2, 3});
  const Tensor<1> w = f64_tensor<1>({1, 0.5, 2}, Shape{3});
  // x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w
  expect_values(module::rms_norm(x, {3}, w, 1e-6),
                {0.4629100002887783, 0.4629100002887783, 2.77746000173267, 0.3779644662598618,
                 0.3779644662598618, 3.0237157300788944});
}

TEST(RmsNorm, DefaultEpsIsTheDtypeEpsilon) {
  // x = [3, 4]: rms = sqrt(12.5); eps 2.2e-16 (f64) is far below the tolerance.
  const Tensor<1> x = f64_tensor<1>({3, 4}, Shape{2});
  expect_values(module::rms_norm(x, {2}), {3 / std::sqrt(12.5), 4 / std::sqrt(12.5)});
}

TEST(GroupNorm, TwoGroupsWithAffine) {
  // xg = np.arange(16.).reshape(2, 4, 2)**1.5 * np.array([1, -1] * 8).reshape(2, 4, 2)
  const std::vector<double> xg = {0.0,
                                  -1.0,
                                  2.8284271247461903,
                                  -5.196152422706632,
                                  8.0,
                                  -11.180339887498949,
                                  14.696938456699069,
                                  -18.520259177452132,
                                  22.627416997969522,
                                  -27.0,
                                  31.622776601683793,
                                  -36.4828726939094,
                                  41.569219381653056,
                                  -46.87216658103186,
                                  52.38320341483518,
                                  -58.09475019311125};
  const Tensor<3> x = f64_tensor<3>(xg, Shape{2, 4, 2});
  const Tensor<1> w = f64_tensor<1>({1, 2, 3, 4}, Shape{4});
  const Tensor<1> b = f64_tensor<1>({0, 0.5, -0.5, 1}, Shape{4});
  // g = xg.reshape(2, 2, -1)
  // y = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)).reshape(2, 4, 2)
  // y * w.reshape(1, 4, 1) + b.reshape(1, 4, 1)
  expect_values(module::group_norm(x, 2, w, b),
                {0.29239435029989747, -0.05489567418871154, 3.049357751434496, -2.524355103656868,
                 1.6569260865655786, -2.585811626498, 5.851073492555876, -3.9458927726459816,
                 0.8369379157292184, -0.8287564722096213, 2.7777162453172375, -1.794079132356432,
                 2.157554718325305, -3.1453051008781525, 5.40793429897618, -3.4242671222390504});
}

struct BatchNormInputs {
  Tensor<3> x = f64_tensor<3>({1, 2, 3, 4, -1, 0, 5, 2, 0.5, 0.5, 7, -3}, Shape{3, 2, 2});
  Tensor<1> running_mean = f64_tensor<1>({0, 1}, Shape{2});
  Tensor<1> running_var = f64_tensor<1>({1, 2}, Shape{2});
  Tensor<1> weight = f64_tensor<1>({2, 0.5}, Shape{2});
  Tensor<1> bias = f64_tensor<1>({1, -1}, Shape{2});
};

TEST(BatchNorm, TrainingUsesBatchStatisticsAndUpdatesRunningOnes) {
  const BatchNormInputs in;
  const auto r = module::batch_norm(in.x, in.running_mean, in.running_var, in.weight, in.bias,
                                    /*training=*/true);
  // mu = x.mean((0, 2)); var = x.var((0, 2))
  // (x - mu.reshape(1, 2, 1)) / np.sqrt(var.reshape(1, 2, 1) + 1e-5) * w.reshape(1, 2, 1) + b...
  expect_values(r.output,
                {2.095438542398796, 4.286315627196387, -1.0, -0.8391832029554112,
                 -2.286315627196387, -0.09543854239879557, -0.6783664059108223, -1.1608167970445888,
                 1.0, 1.0, -0.35673281182164474, -1.964900782267533});
  // 0.9 * rm + 0.1 * mu; 0.9 * rv + 0.1 * x.var((0, 2), ddof=1)
  ASSERT_TRUE(r.running_mean && r.running_var);
  expect_values(*r.running_mean, {0.05, 1.2000000000000002});
  expect_values(*r.running_var, {1.0, 2.96});
}

TEST(BatchNorm, InferenceUsesRunningStatistics) {
  const BatchNormInputs in;
  const auto r = module::batch_norm(in.x, in.running_mean, in.running_var, in.weight, in.bias);
  // (x - rm.reshape(1, 2, 1)) / np.sqrt(rv.reshape(1, 2, 1) + 1e-5) * w... + b...
  expect_values(r.output,
                {2.9999900000749995, 4.999980000149999, -0.29289498657377633, 0.06065752013933534,
                 -0.9999900000749995, 1.0, 0.41421002685244734, -0.6464474932868882,
                 1.9999950000374997, 1.9999950000374997, 1.1213150402786707, -2.414210026852447});
  expect_values(*r.running_mean, {0, 1});
}

TEST(BatchNorm, TrainingWithoutRunningStatistics) {
  // One channel [1, 3]: mean 2, biased var 2/3 → (x - 2) / sqrt(2/3 + 1e-5).
  const Tensor<2> x = f64_tensor<2>({1, 2, 3}, Shape{3, 1});
  const auto r =
      module::batch_norm(x, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true);
  const double s = std::sqrt(2.0 / 3.0 + 1e-5);
  expect_values(r.output, {-1 / s, 0, 1 / s});
  EXPECT_FALSE(r.running_mean.has_value());
}

TEST(Dropout, KeepsScaledValuesAndIsReproducibleWithASeed) {
  const Device device = Device::ndarray();
  const Tensor<1> x = Tensor<1>::ones({2000}, TensorCreationOptions(device).with_dtype(DType::F64));
  device.seed(7);
  const std::vector<double> first = module::dropout(x, 0.25).into_data().to_vector<double>();
  device.seed(7);
  const std::vector<double> second = module::dropout(x, 0.25).into_data().to_vector<double>();
  EXPECT_EQ(first, second);
  int kept = 0;
  for (double v : first) {
    EXPECT_TRUE(v == 0.0 || std::abs(v - 1.0 / 0.75) < 1e-15) << v;
    kept += v != 0.0;
  }
  // Binomial(2000, 0.75): mean 1500, sd 19.4; the bounds are more than 5 sd away.
  EXPECT_GT(kept, 1400);
  EXPECT_LT(kept, 1600);
}

TEST(Dropout, GradientIsTheScaledMask) {
  // d/dx sum(x * mask / (1 - p)) = mask / (1 - p): for x = 1 that is the output itself.
  const Device device = Device::ndarray().autodiff();
  const Tensor<1> x =
      Tensor<1>::ones({64}, TensorCreationOptions(device).with_dtype(DType::F64)).require_grad();
  const Tensor<1> y = module::dropout(x, 0.5);
  const std::vector<double> kept = y.into_data().to_vector<double>();
  const Gradients grads = y.sum().backward();
  expect_values(*x.grad(grads), kept);
}

TEST(Dropout, IdentityOutsideTrainingOrWithPZero) {
  const Tensor<1> x = f64_tensor<1>({1, -2, 3}, Shape{3});
  expect_values(module::dropout(x, 0.9, false), {1, -2, 3});
  expect_values(module::dropout(x, 0.0), {1, -2, 3});
}

const std::vector<double> kInput = {0.5, -1, 2, 3.5, 0, -2.5};
const std::vector<double> kTarget = {1, 1, -0.5, 3, 0.25, 0.5};

TEST(Losses, MseAndL1WithEachReduction) {
  const Tensor<2> a = f64_tensor<2>(kInput, Shape{2, 3});
  const Tensor<2> t = f64_tensor<2>(kTarget, Shape{2, 3});
  // d = a - t: [-0.5, -2, 2.5, 0.5, -0.25, -3]; d^2 sums to 19.8125, |d| to 8.75.
  const Tensor<2> mean = module::mse_loss(a, t);
  EXPECT_EQ(mean.shape(), (Shape{1, 1}));
  expect_values(mean, {19.8125 / 6});
  expect_values(module::mse_loss(a, t, Reduction::Sum), {19.8125});
  expect_values(module::mse_loss(a, t, Reduction::None), {0.25, 4, 6.25, 0.25, 0.0625, 9});
  expect_values(module::l1_loss(a, t), {8.75 / 6});
  expect_values(module::l1_loss(a, t, Reduction::Sum), {8.75});
}

TEST(Losses, Huber) {
  const Tensor<1> a = f64_tensor<1>(kInput, Shape{6});
  const Tensor<1> t = f64_tensor<1>(kTarget, Shape{6});
  // delta 1: 0.5 d^2 where |d| <= 1, else |d| - 0.5.
  expect_values(module::huber_loss(a, t, Reduction::None), {0.125, 1.5, 2, 0.125, 0.03125, 2.5});
  // np.where(ad <= 2, 0.5 * d * d, 2 * (ad - 1)).mean()
  expect_values(module::huber_loss(a, t, Reduction::Mean, 2.0), {1.546875});
}

TEST(Losses, BinaryCrossEntropyWithLogitsIsStable) {
  const Tensor<2> x = f64_tensor<2>({0.5, -2, 100, -100, 3, -0.25}, Shape{2, 3});
  const Tensor<2> y = f64_tensor<2>({1, 0, 1, 0, 0.3, 1}, Shape{2, 3});
  // Independent form: ls = -np.logaddexp(0, -x); l1s = -np.logaddexp(0, x)
  // -(y * ls + (1 - y) * l1s)
  expect_values(module::binary_cross_entropy_with_logits(x, y, Reduction::None),
                {0.4740769841801067, 0.1269280110429725, 3.720075976020836e-44,
                 3.720075976020836e-44, 2.148587351573742, 0.8259394198788436});
  // pw = [2, 1, 0.5]: (-(pw * y * ls + (1 - y) * l1s)).mean()
  const Tensor<1> pw = f64_tensor<1>({2, 1, 0.5}, Shape{3});
  expect_values(module::binary_cross_entropy_with_logits(x, y, Reduction::Mean, pw),
                {0.6061065068193916});
}

// z = np.array([[1, 2, 0.5], [-1, 0, 3], [0.2, 0.2, -0.4], [2, -2, 1]]); tg = [1, 2, 0, 0]
// lp = log_softmax(z, 1) (z - max - log(sum(exp(z - max)))); cw = [0.5, 2, 1]; n = np.arange(4)
const std::vector<double> kLogits = {1, 2, 0.5, -1, 0, 3, 0.2, 0.2, -0.4, 2, -2, 1};
const std::vector<double> kLogProbs = {
    -1.464368784107945,  -0.4643687841079449,  -1.964368784107945,  -4.065883903757429,
    -3.0658839037574293, -0.06588390375742911, -0.9356272254857411, -0.9356272254857411,
    -1.535627225485741,  -0.3265626412674705,  -4.32656264126747,   -1.3265626412674705};

struct ClassInputs {
  Tensor<2> logits = f64_tensor<2>(kLogits, Shape{4, 3});
  Tensor<2> log_probs = f64_tensor<2>(kLogProbs, Shape{4, 3});
  Tensor<1, Int> targets = i64_tensor<1>({1, 2, 0, 0}, Shape{4});
  Tensor<1> weight = f64_tensor<1>({0.5, 2, 1}, Shape{3});
};

TEST(NllLoss, EachReductionWithAndWithoutWeights) {
  const ClassInputs in;
  // -lp[n, tg]
  expect_values(module::nll_loss(in.log_probs, in.targets, std::nullopt, Reduction::None),
                {0.4643687841079449, 0.06588390375742911, 0.9356272254857411, 0.3265626412674705});
  expect_values(module::nll_loss(in.log_probs, in.targets), {0.4481106386546464});
  expect_values(module::nll_loss(in.log_probs, in.targets, std::nullopt, Reduction::Sum),
                {1.7924425546185856});
  // -cw[tg] * lp[n, tg]; its Mean: (-cw[tg] * lp[n, tg]).sum() / cw[tg].sum()
  expect_values(
      module::nll_loss(in.log_probs, in.targets, in.weight, Reduction::None),
      {0.9287375682158898, 0.06588390375742911, 0.46781361274287053, 0.16328132063373524});
  expect_values(module::nll_loss(in.log_probs, in.targets, in.weight), {0.4064291013374812});
}

TEST(CrossEntropy, IndexTargetsEqualNllOfLogSoftmax) {
  const ClassInputs in;
  expect_values(module::cross_entropy(in.logits, in.targets, in.weight), {0.4064291013374812});
}

TEST(CrossEntropy, LabelSmoothing) {
  const ClassInputs in;
  // s = 0.2, C = 3: (1 - s) * (-lp[n, tg]) + s / C * (-lp.sum(1))
  expect_values(module::cross_entropy(in.logits, in.targets, std::nullopt, Reduction::None, 0.2),
                {0.6310354507746117, 0.5325505704240958, 0.9756272254857411, 0.6598959746008037});
  // nllw = (-cw[tg] * lp[n, tg]).sum() / cw[tg].sum(); sm = (-(lp * cw).sum(1)).sum() /
  // cw[tg].sum() (1 - s) * nllw + s / C * sm
  expect_values(module::cross_entropy(in.logits, in.targets, in.weight, Reduction::Mean, 0.2),
                {0.7563690967560692});
}

TEST(CrossEntropy, ProbabilityTargets) {
  const ClassInputs in;
  const Tensor<2> y = f64_tensor<2>(
      {0.2, 0.7, 0.1, 0, 0, 1, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0.5, 0.25, 0.25}, Shape{4, 3});
  // -(lp * yp).sum(1)
  expect_values(module::cross_entropy(in.logits, y, std::nullopt, Reduction::None),
                {0.8143687841079449, 0.06588390375742911, 1.1356272254857411, 1.5765626412674703});
  // ys = yp * (1 - s) + s / C; (-(lp * cw * ys).sum(1)).sum() / 4
  expect_values(module::cross_entropy(in.logits, y, in.weight, Reduction::Mean, 0.2),
                {1.4166261548856127});
}

TEST(KlDiv, ZeroTargetsContributeZero) {
  const Tensor<1> input = f64_tensor<1>({0.25, 0.25, 0.5, 0.1, 0.6, 0.3}, Shape{6}).log();
  const Tensor<1> target = f64_tensor<1>({0.5, 0, 0.5, 0.2, 0.2, 0.6}, Shape{6});
  // np.where(tk > 0, tk * (np.log(np.where(tk > 0, tk, 1)) - inp), 0)
  expect_values(module::kl_div(input, target, Reduction::None),
                {0.34657359027997264, 0.0, 0.0, 0.13862943611198905, -0.21972245773362192,
                 0.41588830833596724});
  expect_values(module::kl_div(input, target), {0.11356147949905115});
  expect_values(module::kl_div(input, target, Reduction::Sum), {0.6813688769943069});
}

TEST(NllLoss, IgnoreIndexCountsZeroAndLeavesTheMeanDivisor) {
  const ClassInputs in;
  const Tensor<1, Int> targets = i64_tensor<1>({1, -100, 0, 0}, Shape{4});
  // The per-sample values of EachReductionWithAndWithoutWeights, row 1 zeroed.
  expect_values(module::nll_loss(in.log_probs, targets, std::nullopt, Reduction::None),
                {0.4643687841079449, 0.0, 0.9356272254857411, 0.3265626412674705});
  expect_values(module::nll_loss(in.log_probs, targets),
                {(0.4643687841079449 + 0.9356272254857411 + 0.3265626412674705) / 3});
  // Weighted: divided by cw[1] + cw[0] + cw[0] = 3.
  expect_values(module::nll_loss(in.log_probs, targets, in.weight),
                {(0.9287375682158898 + 0.46781361274287053 + 0.16328132063373524) / 3});
}

TEST(NllLoss, IgnoreIndexMayBeAValidClass) {
  const ClassInputs in;
  // ignore_index 0 drops rows 2 and 3.
  expect_values(module::nll_loss(in.log_probs, in.targets, std::nullopt, Reduction::Sum, 0),
                {0.4643687841079449 + 0.06588390375742911});
}

TEST(CrossEntropy, IgnoreIndexWithLabelSmoothing) {
  const ClassInputs in;
  const Tensor<1, Int> targets = i64_tensor<1>({1, 2, -100, 0}, Shape{4});
  // The LabelSmoothing values with row 2 zeroed: the smoothing term drops it too.
  const std::vector<double> kept = {0.6310354507746117, 0.5325505704240958, 0.0,
                                    0.6598959746008037};
  expect_values(module::cross_entropy(in.logits, targets, std::nullopt, Reduction::None, 0.2),
                kept);
  expect_values(module::cross_entropy(in.logits, targets, std::nullopt, Reduction::Mean, 0.2),
                {(kept[0] + kept[1] + kept[3]) / 3});
}

// kLogits' four rows laid out as logits [2, 3, 2]: row n * 2 + d is logits[n, :, d].
const std::vector<double> kSpatialLogits = {1, -1, 2, 0, 0.5, 3, 0.2, 2, 0.2, -2, -0.4, 1};

TEST(CrossEntropy, SpatialTargetsMatchTheFlattenedRows) {
  const ClassInputs in;
  const Tensor<3> logits = f64_tensor<3>(kSpatialLogits, Shape{2, 3, 2});
  const Tensor<2, Int> targets = i64_tensor<2>({1, 2, 0, 0}, Shape{2, 2});
  const Tensor<2> none = module::cross_entropy(logits, targets, in.weight, Reduction::None);
  EXPECT_EQ(none.shape(), (Shape{2, 2}));
  // cw[tg] * -lp[n, tg] (NllLoss.EachReductionWithAndWithoutWeights).
  expect_values(
      none, {0.9287375682158898, 0.06588390375742911, 0.46781361274287053, 0.16328132063373524});
  const Tensor<2> mean = module::cross_entropy(logits, targets, in.weight);
  EXPECT_EQ(mean.shape(), (Shape{1, 1}));
  expect_values(mean, {0.4064291013374812});
}

TEST(NllLoss, SpatialTargetsWithIgnoreIndex) {
  // Log-probabilities [1, 3, 2] (two positions); position 1 ignored.
  const Tensor<3> lp = f64_tensor<3>({-0.5, -1, -1.5, -2, -3, -0.25}, Shape{1, 3, 2});
  const Tensor<2, Int> targets = i64_tensor<2>({2, 7}, Shape{1, 2});
  expect_values(module::nll_loss(lp, targets, std::nullopt, Reduction::None, 7), {3, 0});
  expect_values(module::nll_loss(lp, targets, std::nullopt, Reduction::Mean, 7), {3});
}

TEST(CrossEntropy, SpatialProbabilityTargets) {
  const ClassInputs in;
  const Tensor<3> logits = f64_tensor<3>(kSpatialLogits, Shape{2, 3, 2});
  // ProbabilityTargets' rows laid out as logits.
  const Tensor<3> y = f64_tensor<3>(
      {0.2, 0, 0.7, 0, 0.1, 1, 1.0 / 3, 0.5, 1.0 / 3, 0.25, 1.0 / 3, 0.25}, Shape{2, 3, 2});
  expect_values(module::cross_entropy(logits, y, std::nullopt, Reduction::None),
                {0.8143687841079449, 0.06588390375742911, 1.1356272254857411, 1.5765626412674703});
}

TEST(KlDiv, BatchMeanDividesTheSumByDimZero) {
  const Tensor<2> input = f64_tensor<2>({0.25, 0.25, 0.5, 0.1, 0.6, 0.3}, Shape{2, 3}).log();
  const Tensor<2> target = f64_tensor<2>({0.5, 0, 0.5, 0.2, 0.2, 0.6}, Shape{2, 3});
  const Tensor<2> batch_mean = module::kl_div(input, target, Reduction::BatchMean);
  EXPECT_EQ(batch_mean.shape(), (Shape{1, 1}));
  // ZeroTargetsContributeZero's Sum / 2.
  expect_values(batch_mean, {0.6813688769943069 / 2});
}

TEST(KlDiv, LogTarget) {
  const Tensor<2> input = f64_tensor<2>({0.25, 0.25, 0.5, 0.1, 0.6, 0.3}, Shape{2, 3}).log();
  const Tensor<2> target = f64_tensor<2>({0.5, 0.1, 0.5, 0.2, 0.2, 0.6}, Shape{2, 3});
  // t * (np.log(t) - inp)
  const std::vector<double> expected = {
      0.34657359027997264, -0.09162907318741549, 0.0,
      0.13862943611198905, -0.21972245773362192, 0.41588830833596724};
  expect_values(module::kl_div(input, target.log(), Reduction::None, true), expected);
  // (t * (np.log(t) - inp)).sum() / 2
  expect_values(module::kl_div(input, target.log(), Reduction::BatchMean, true),
                {0.29486990190344575});
}

struct AttentionInputs {
  Tensor<3> q = f64_tensor<3>({1, 0, -1, 0.5, 2, 0}, Shape{1, 2, 3});
  Tensor<3> k = f64_tensor<3>({1, 1, 0, 0, -1, 2, 0.3, 0.3, 0.3}, Shape{1, 3, 3});
  Tensor<3> v = f64_tensor<3>({1, 2, -1, 0, 3, -2}, Shape{1, 3, 2});
};
// sm_ = softmax over the last axis; sc = q @ k.transpose(0, 2, 1) / np.sqrt(3)

TEST(Attention, PlainScaledSoftmax) {
  const AttentionInputs in;
  // sm_(sc) @ v
  expect_values(module::scaled_dot_product_attention(in.q, in.k, in.v),
                {1.4423420296378753, 0.5046479828255097, 1.4027382892294324, 0.8841316540216473});
}

TEST(Attention, BoolMaskKeepsTrue) {
  const AttentionInputs in;
  const Tensor<3, Bool> mask = Tensor<3, Bool>::from_data(
      TensorData(std::vector<bool>{true, false, true, false, true, true}, Shape{1, 2, 3}),
      Device::ndarray());
  // sm_(np.where(bm, sc, -np.inf)) @ v
  expect_values(
      module::scaled_dot_product_attention(in.q, in.k, in.v, std::optional<Tensor<3, Bool>>(mask)),
      {1.7190850486387448, 0.5618299027225101, 2.321176514847354, -1.660588257423677});
}

TEST(Attention, FloatMaskIsAddedWithExplicitScale) {
  const AttentionInputs in;
  const Tensor<3> mask = f64_tensor<3>({0, -1, 0.5, 2, 0, -3}, Shape{1, 2, 3});
  // sm_(q @ k.transpose(0, 2, 1) * 0.5 + fm) @ v
  expect_values(
      module::scaled_dot_product_attention<3, Float>(in.q, in.k, in.v, mask, false, 0.0, 0.5),
      {1.8817267325616136, 0.0, 0.9774737125104298, 1.960903845154319}, 1e-11);
}

TEST(Attention, CausalKeepsEarlierPositions) {
  const AttentionInputs in;
  // Row 0 sees key 0 only (v[0] = [1, 2]); sm_(np.where(np.tril(np.ones((2, 3))) > 0, sc, -np.inf))
  // @ v
  expect_values(module::scaled_dot_product_attention(in.q, in.k, in.v, std::nullopt, true),
                {1.0, 2.0, 0.8614753304371533, 1.8614753304371532});
}

}  // namespace
}  // namespace ember::test
