// nn::PositionalEncoding and sinusoidal_table: the table against the paper's formula evaluated
// entry by entry (generate_sequence.py), the sum and its dropout, no state, and errors.
#include "ember/nn/positional_encoding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sequence_support.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

namespace golden = sequence_golden;

TensorCreationOptions f64() {
  return TensorCreationOptions(ember::test::suite_device()).with_dtype(DType::F64);
}

TEST(PositionalEncoding, TableMatchesTheFormula) {
  golden::expect_near(sinusoidal_table(5, 6, f64()),
                      golden::sequence_case("positional_even").at("table"), "even d_model");
  golden::expect_near(sinusoidal_table(4, 5, f64()),
                      golden::sequence_case("positional_odd").at("table"), "odd d_model");
}

TEST(PositionalEncoding, FirstRowsByHand) {
  // Position 0: sin 0 = 0, cos 0 = 1; position 1, pair 0: sin 1, cos 1; pair 1 of d_model 4:
  // angle 1 / 10000^(2/4) = 0.01.
  const std::vector<double> table = sinusoidal_table(2, 4, f64()).into_data().to_vector<double>();
  const std::vector<double> expected{
      0, 1, 0, 1, std::sin(1.0), std::cos(1.0), std::sin(0.01), std::cos(0.01)};
  ASSERT_EQ(table.size(), expected.size());
  for (std::size_t i = 0; i < table.size(); ++i)
    EXPECT_NEAR(table[i], expected[i], 1e-15) << i;
}

TEST(PositionalEncoding, ForwardAddsTheTableToEverySequence) {
  PositionalEncoding pe = PositionalEncodingConfig{6, 0.5}.init(ember::test::suite_device());
  eval(pe);
  const Tensor<3> x = Tensor<3>::random({2, 5, 6}, Distribution::normal(0.0, 1.0), f64());
  const std::vector<double> got = pe.forward(x).into_data().to_vector<double>();
  const std::vector<double> xs = x.into_data().to_vector<double>();
  const std::vector<double> table =
      golden::tensor<2>(golden::sequence_case("positional_even").at("table"),
                        ember::test::suite_device())
          .into_data()
          .to_vector<double>();
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], xs[i] + table[i % table.size()], 1e-12) << i;
  EXPECT_EQ(pe.forward(x.cast(DType::F32)).dtype(), DType::F32);
}

TEST(PositionalEncoding, TrainingDropsAndRescalesTheSum) {
  PositionalEncoding pe = PositionalEncodingConfig{4, 0.5}.init(ember::test::suite_device());
  const Tensor<3> x = Tensor<3>::random({3, 4, 4}, Distribution::normal(0.0, 1.0), f64());
  const std::vector<double> dropped = pe.forward(x).into_data().to_vector<double>();
  eval(pe);
  const std::vector<double> kept = pe.forward(x).into_data().to_vector<double>();
  int zeroed = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (dropped[i] == 0.0) {
      ++zeroed;
    } else {
      EXPECT_NEAR(dropped[i], 2.0 * kept[i], 1e-12) << i;
    }
  }
  EXPECT_GT(zeroed, 0);
}

TEST(PositionalEncoding, HasNoState) {
  const PositionalEncoding pe = PositionalEncodingConfig{8}.init(ember::test::suite_device());
  EXPECT_TRUE(state(pe).empty());
  EXPECT_EQ(pe.dropout.p, 0.1);
}

TEST(PositionalEncoding, ErrorsNameTheValues) {
  const Device device = ember::test::suite_device();
  layer_golden::expect_invalid([&] { PositionalEncodingConfig{0}.init(device); },
                               {"[PositionalEncoding] ", "d_model 0"});
  layer_golden::expect_invalid(
      [&] {
        PositionalEncodingConfig{4, 1.5}.init(device);
      },
      {"[PositionalEncoding] ", "dropout 1.5"});
  layer_golden::expect_invalid([&] { sinusoidal_table(-1, 4, device); },
                               {"[PositionalEncoding] ", "length -1"});
  const PositionalEncoding pe = PositionalEncodingConfig{4}.init(device);
  layer_golden::expect_invalid(
      [&] {
        pe.forward(Tensor<3>::zeros({1, 2, 3}, device));
      },
      {"[PositionalEncoding] ", "[1, 2, 3]", "d_model = 4"});
}

}  // namespace
}  // namespace ember::nn
