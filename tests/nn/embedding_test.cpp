// nn::Embedding (nn/embedding.h): PyTorch goldens (the padding row gets no gradient), PyTorch's
// N(0, 1) initialization and zeroed padding row, and config validation.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "ember/nn/embedding.h"
#include "layer_golden.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

using layer_golden::expect_golden;
using layer_golden::expect_invalid;
using layer_golden::golden_device;

TEST(EmbeddingLayer, MatchesPyTorch) {
  Embedding embedding = EmbeddingConfig{6, 3}.init(golden_device());
  expect_golden<2, Int>(embedding, "embedding");
}

TEST(EmbeddingLayer, PaddingRowGetsNoGradientAsInPyTorch) {
  Embedding embedding = EmbeddingConfig{5, 2, 1}.init(golden_device());
  expect_golden<2, Int>(embedding, "embedding_padding");
}

TEST(EmbeddingLayer, WeightIsStandardNormalWithThePaddingRowZeroed) {
  // padding_idx -1 is the last row. 2000 N(0, 1) draws: mean within 0.1 and std within 0.1.
  const Embedding embedding = EmbeddingConfig{1001, 2, -1}.init(ember::test::suite_device());
  EXPECT_EQ(embedding.padding_idx, 1000);
  const std::vector<double> w = embedding.weight->into_data().to_vector<double>();
  EXPECT_EQ(w[2000], 0.0);
  EXPECT_EQ(w[2001], 0.0);
  const double mean = std::accumulate(w.begin(), w.end() - 2, 0.0) / 2000.0;
  double sq = 0;
  for (auto it = w.begin(); it != w.end() - 2; ++it)
    sq += (*it - mean) * (*it - mean);
  EXPECT_NEAR(mean, 0.0, 0.1);
  EXPECT_NEAR(std::sqrt(sq / 2000.0), 1.0, 0.1);
}

TEST(EmbeddingLayer, AnIndexOutOfRangeIsAnInvalidArgument) {
  const Embedding embedding = EmbeddingConfig{3, 2}.init(ember::test::suite_device());
  EXPECT_THROW(embedding.forward(Tensor<1, Int>::from_ints({0, 3}, ember::test::suite_device())),
               InvalidArgument);
}

TEST(EmbeddingLayer, BadConfigsNameTheLayerAndTheValue) {
  const Device d = ember::test::suite_device();
  expect_invalid([&] { EmbeddingConfig{0, 2}.init(d); }, {"[Embedding]", "num_embeddings 0"});
  expect_invalid([&] { EmbeddingConfig{4, 0}.init(d); }, {"[Embedding]", "embedding_dim 0"});
  expect_invalid(
      [&] {
        EmbeddingConfig{4, 2, 4}.init(d);
      },
      {"[Embedding]", "padding_idx 4", "[-4, 4)"});
  expect_invalid([&] { EmbeddingConfig{4, 2, -5}.init(d); }, {"[Embedding]", "padding_idx -5"});
}

}  // namespace
}  // namespace ember::nn
