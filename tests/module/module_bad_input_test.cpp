// Bad input to the module functions: an InvalidArgument naming the function and the values.
#include <gtest/gtest.h>

#include <optional>

#include "module/module_test_util.h"
#include "tensor/tensor_test_util.h"

namespace ember::test {
namespace {

using module::Reduction;

Tensor<2> zeros2(int64_t a, int64_t b) {
  return Tensor<2>::zeros({a, b}, Device::ndarray());
}
Tensor<1> zeros1(int64_t a) {
  return Tensor<1>::zeros({a}, Device::ndarray());
}

TEST(ModuleBadInput, Linear) {
  EXPECT_INVALID(module::linear(zeros2(2, 3), zeros2(4, 5)), "[linear]", "[2, 3]", "[4, 5]",
                 "3 != in_features 5");
  EXPECT_INVALID(module::linear(zeros2(2, 3), zeros2(4, 3), zeros1(5)), "[linear]", "bias [5]",
                 "[4]");
}

TEST(ModuleBadInput, EmbeddingIndexOutOfRangeNamesTheEmbedding) {
  for (const Device& device : Device::enumerate(DeviceFilter::all())) {
    const Tensor<2> weight = Tensor<2>::zeros({3, 2}, device);
    EXPECT_INVALID(module::embedding(weight, Tensor<1, Int>::from_ints({0, 3}, device)).into_data(),
                   "[embedding] index 3 out of range", "size 3");
  }
}

TEST(ModuleBadInput, Normalizations) {
  EXPECT_INVALID(module::layer_norm(zeros2(2, 3), {4}), "[layer_norm]", "normalized_shape [4]",
                 "[2, 3]");
  EXPECT_INVALID(module::layer_norm(zeros2(2, 3), {3}, zeros1(2)), "[layer_norm]", "weight [2]",
                 "[3]");
  EXPECT_INVALID(module::rms_norm(zeros2(2, 3), {2}), "[rms_norm]", "normalized_shape [2]");
  EXPECT_INVALID(module::group_norm(Tensor<3>::zeros({2, 6, 2}, Device::ndarray()), 4),
                 "[group_norm]", "groups 4", "6 channels");
  EXPECT_INVALID(module::group_norm(zeros1(6), 2), "[group_norm]", "[6]", "rank >= 2");
}

TEST(ModuleBadInput, BatchNorm) {
  EXPECT_INVALID(module::batch_norm(zeros2(4, 3), std::nullopt, std::nullopt), "[batch_norm]",
                 "running_mean and running_var");
  EXPECT_INVALID(module::batch_norm(zeros2(4, 3), zeros1(2), zeros1(3)), "[batch_norm]",
                 "running_mean [2]", "[3]");
  EXPECT_INVALID(module::batch_norm(zeros2(1, 3), std::nullopt, std::nullopt, std::nullopt,
                                    std::nullopt, true),
                 "[batch_norm]", "[1, 3]", "1 value per channel");
}

TEST(ModuleBadInput, DropoutProbability) {
  EXPECT_INVALID(module::dropout(zeros1(3), 1.0), "[dropout]", "p 1 ");
  EXPECT_INVALID(module::dropout(zeros1(3), -0.5, false), "[dropout]", "p -0.5");
  EXPECT_INVALID(
      module::scaled_dot_product_attention(Tensor<2>::zeros({2, 2}, Device::ndarray()),
                                           zeros2(2, 2), zeros2(2, 2), std::nullopt, false, 1.5),
      "[dropout]", "p 1.5");
}

TEST(ModuleBadInput, Losses) {
  EXPECT_INVALID(module::mse_loss(zeros2(2, 3), zeros2(3, 2)), "[mse_loss]", "[2, 3]", "[3, 2]");
  EXPECT_INVALID(module::huber_loss(zeros1(2), zeros1(2), Reduction::Mean, 0.0), "[huber_loss]",
                 "delta 0");
  EXPECT_INVALID(module::kl_div(zeros1(2), zeros1(3)), "[kl_div]", "[2]", "[3]");
}

TEST(ModuleBadInput, BatchMeanIsKlDivsOnly) {
  EXPECT_INVALID(module::mse_loss(zeros1(2), zeros1(2), Reduction::BatchMean), "[mse_loss]",
                 "reduction BatchMean is kl_div's only");
  EXPECT_INVALID(module::cross_entropy(zeros2(2, 3), i64_tensor<1>({0, 1}, Shape{2}), std::nullopt,
                                       Reduction::BatchMean),
                 "[cross_entropy]", "BatchMean");
}

TEST(ModuleBadInput, ClassTargetsOutOfRange) {
  const Tensor<2> scores = zeros2(2, 3);
  EXPECT_INVALID(module::nll_loss(scores, i64_tensor<1>({0, 3}, Shape{2})), "[nll_loss]",
                 "target 3", "[0, 3)");
  EXPECT_INVALID(module::cross_entropy(scores, i64_tensor<1>({-1, 0}, Shape{2})), "[cross_entropy]",
                 "target -1");
  EXPECT_INVALID(module::nll_loss(scores, i64_tensor<1>({0, 1, 2}, Shape{3})), "[nll_loss]",
                 "[2, 3]", "[3]", "batch size");
  EXPECT_INVALID(module::nll_loss(scores, i64_tensor<1>({0, -100}, Shape{2}), std::nullopt,
                                  Reduction::Mean, -1),
                 "[nll_loss]", "target -100", "ignore_index -1");
  EXPECT_INVALID(module::nll_loss(Tensor<3>::zeros({2, 3, 4}, Device::ndarray()),
                                  i64_tensor<2>({0, 1, 2, 0, 1, 2}, Shape{2, 3})),
                 "[nll_loss]", "[2, 3, 4]", "[2, 3]", "without dim 1");
  EXPECT_INVALID(module::nll_loss(scores, i64_tensor<1>({0, 1}, Shape{2}), zeros1(4)), "[nll_loss]",
                 "weight [4]");
  EXPECT_INVALID(module::cross_entropy(scores, zeros2(2, 4)), "[cross_entropy]", "[2, 3]",
                 "[2, 4]");
  EXPECT_INVALID(module::cross_entropy(scores, i64_tensor<1>({0, 1}, Shape{2}), std::nullopt,
                                       Reduction::Mean, 1.5),
                 "[cross_entropy]", "label_smoothing 1.5");
}

TEST(ModuleBadInput, Attention) {
  const Tensor<3> q = Tensor<3>::zeros({1, 2, 4}, Device::ndarray());
  const Tensor<3> k = Tensor<3>::zeros({1, 3, 5}, Device::ndarray());
  EXPECT_INVALID(module::scaled_dot_product_attention(q, k, k), "[scaled_dot_product_attention]",
                 "[1, 2, 4]", "[1, 3, 5]");
  const Tensor<3, Bool> mask = Tensor<3, Bool>::ones({1, 2, 2}, Device::ndarray());
  EXPECT_INVALID(module::scaled_dot_product_attention(q, q, q, std::optional(mask), true),
                 "[scaled_dot_product_attention]", "is_causal");
  const Tensor<3, Int> int_mask = Tensor<3, Int>::ones({1, 2, 2}, Device::ndarray());
  // Parenthesized: the template argument list holds a comma.
  EXPECT_INVALID((module::scaled_dot_product_attention<3, Int>(q, q, q, int_mask)),
                 "[scaled_dot_product_attention]", "must be Bool or Float");
}

}  // namespace
}  // namespace ember::test
