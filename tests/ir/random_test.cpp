// The random stream (ir/random.h, docs/random.md): Philox4x32-10 against its published answers,
// the f32 log and cos against libm, the distributions' statistics, values from an independent
// implementation, and the same tensors on every device.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "ember/devices.h"
#include "ember/tensor_ops.h"
#include "ir/philox.h"
#include "ir/random.h"

namespace ember::ir::random_test {
namespace {

/// Draws per statistical check; its tolerances are 5 standard errors of this sample size.
constexpr int kDraws = 1'000'000;
constexpr double kSigmas = 5.0;
constexpr uint64_t kKey = 0x0123456789ABCDEF;

/// |actual - expected| in units of the f32 spacing at expected.
double ulps(float actual, double expected) {
  const float magnitude = std::fabs(static_cast<float>(expected));
  return std::fabs(actual - expected) /
         (std::nextafter(magnitude, std::numeric_limits<float>::infinity()) - magnitude);
}

/// 5 standard errors of the mean of kDraws draws with standard deviation sd.
double tolerance(double sd) {
  return kSigmas * sd / std::sqrt(static_cast<double>(kDraws));
}

TEST(Philox, MatchesRandom123KnownAnswers) {
  // Random123's kat_vectors, the philox4x32 10 lines: counter, key, expected block.
  struct Kat {
    PhiloxCounter counter;
    PhiloxKey key;
    std::array<uint32_t, 4> expected;
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& kat : kats)
    EXPECT_EQ(philox4x32_10(kat.counter, kat.key), kat.expected);
}

// Element index under kKey, computed in Python (not from this code): Philox4x32-10 written from
// the paper's round function (checked against the known answers above) with the counter
// {low32(index), high32(index), 0, 0} and the key {low32(kKey), high32(kKey)}, the uniforms of
// docs/random.md, and Box-Muller in double with math.log and math.cos.
struct Reference {
  uint64_t index;
  std::array<uint32_t, 4> words;
  double uniform_f32;      ///< (w0 >> 8) 2^-24
  double uniform_f64;      ///< (w0 2^21 + (w1 >> 11)) 2^-53
  double normal_from_f32;  ///< Box-Muller of 1 - uniform_f32 and (w2 >> 8) 2^-24
  double normal_from_f64;  ///< Box-Muller of 1 - uniform_f64 and (w2 2^21 + (w3 >> 11)) 2^-53
};
const Reference kReferences[] = {
    {0x0,
     {0xb850222e, 0xc58cb04b, 0x14a7a020, 0x7a84fff9},
     0x1.70a044p-1,
     0x1.70a0445d8b196p-1,
     1.3948689620765966,
     1.3948689465784165},
    {0x1,
     {0xadca1466, 0x523e0d85, 0x65401425, 0xb299da3f},
     0x1.5b9428p-1,
     0x1.5b9428cca47c1p-1,
     -1.1939050743163622,
     -1.1939051640394092},
    {0x2,
     {0xf7ce299f, 0x823ccb40, 0x4fefe3cc, 0x1a8fe6b6},
     0x1.ef9c52p-1,
     0x1.ef9c533f04799p-1,
     -1.000270226293998,
     -1.000271119100463},
    {0x3,
     {0xac3078f0, 0x7fbe88a2, 0x0848e918, 0xfe13862d},
     0x1.5860fp-1,
     0x1.5860f1e0ff7d1p-1,
     1.4636127459451105,
     1.4636128470063277},
    {0x100000005,  // the index's high word goes to counter word 1
     {0xb8b243f7, 0xda8fb9a8, 0x46004299, 0xe54c389c},
     0x1.716486p-1,
     0x1.716487efb51f7p-1,
     -0.23464544886662866,
     -0.23464582395568437},
};

TEST(RandomStream, MatchesAnIndependentImplementation) {
  const Distribution normal = Distribution::normal(0.0, 1.0);
  for (const Reference& r : kReferences) {
    SCOPED_TRACE(r.index);
    EXPECT_EQ(random_words(kKey, r.index), r.words);
    EXPECT_EQ(random_value<float>(Distribution::Default, kKey, r.index), r.uniform_f32);
    EXPECT_EQ(random_value<double>(Distribution::Default, kKey, r.index), r.uniform_f64);
    // The f32 normal is the f32 Box-Muller: within its error bound (NormalIsWithinThreeUlps).
    EXPECT_LE(ulps(random_value<float>(normal, kKey, r.index), r.normal_from_f32), 3.0);
    // The f64 normal uses libm, which may differ from Python's in the last bit.
    EXPECT_NEAR(random_value<double>(normal, kKey, r.index), r.normal_from_f64, 1e-15);
  }
}

TEST(RandomStream, FloatDrawIsTheDoubleDrawTruncated) {
  for (uint64_t i = 0; i < 1000; ++i) {
    const std::array<uint32_t, 4> w = random_words(kKey, i);
    const double u = uniform01<double>(w[0], w[1]);
    EXPECT_EQ(uniform01<float>(w[0], w[1]), std::ldexp(std::floor(std::ldexp(u, 24)), -24));
  }
}

// log_f32 and cos_turns_f32 against libm in double, on every input the stream gives them: the
// 2^24 multiples of 2^-24 in (0, 1] and [0, 1). These cover the log's reduced mantissa range
// [sqrt(1/2), sqrt(2)) (at least every other float) and the cos's quarter turns densely.
constexpr uint32_t kGrid = 1u << 24;

TEST(RandomMath, LogIsWithinOneUlp) {
  double worst = 0.0;
  for (uint32_t k = 1; k < kGrid; ++k) {
    const float x = static_cast<float>(k) * 0x1p-24f;
    worst = std::max(worst, ulps(log_f32(x), std::log(static_cast<double>(x))));
  }
  EXPECT_LE(worst, 1.0);  // measured: 0.87
  EXPECT_EQ(log_f32(1.0f), 0.0f);
}

TEST(RandomMath, CosOfTurnsIsWithinOneUlp) {
  double worst = 0.0;
  for (uint32_t k = 0; k < kGrid; ++k) {
    if (k % (kGrid / 4) == 0 && k % (kGrid / 2) != 0) continue;  // the zeros, checked below
    const float u = static_cast<float>(k) * 0x1p-24f;
    const double expected = std::cos(2.0 * std::numbers::pi * static_cast<double>(u));
    worst = std::max(worst, ulps(cos_turns_f32(u), expected));
  }
  EXPECT_LE(worst, 1.0);  // measured: 0.99
  // Exact at the quarter turns, where 2 pi u rounded is not.
  EXPECT_EQ(cos_turns_f32(0.0f), 1.0f);
  EXPECT_EQ(cos_turns_f32(0.25f), 0.0f);
  EXPECT_EQ(cos_turns_f32(0.5f), -1.0f);
  EXPECT_EQ(cos_turns_f32(0.75f), 0.0f);
}

TEST(RandomMath, NormalIsWithinThreeUlps) {
  // The f32 normal against Box-Muller in double of the same two uniforms.
  const Distribution normal = Distribution::normal(0.0, 1.0);
  double worst = 0.0;
  for (uint64_t i = 0; i < kDraws; ++i) {
    const auto [w0, w1, w2, w3] = random_words(kKey, i);
    const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform01<float>(w0, w1)));
    const double angle = 2.0 * std::numbers::pi * uniform01<float>(w2, w3);
    const double expected = radius * std::cos(angle);
    const float actual = random_value<float>(normal, kKey, i);
    // cos is exactly 0 at a quarter turn, where cos(2 pi u) in double is a rounding error.
    if (std::fabs(expected) < 1e-12) {
      EXPECT_EQ(actual, 0.0f) << i;
    } else {
      worst = std::max(worst, ulps(actual, expected));
    }
  }
  EXPECT_LE(worst, 3.0);  // measured: 2.58 over 2 * 10^7 draws
}

template <typename T>
class RandomStatistics : public ::testing::Test {
 protected:
  /// The first kDraws elements of the stream kKey drawn from d in T.
  static std::vector<double> draw(const Distribution& d) {
    std::vector<double> values(kDraws);
    for (int i = 0; i < kDraws; ++i)
      values[static_cast<std::size_t>(i)] = random_value<T>(d, kKey, static_cast<uint64_t>(i));
    return values;
  }
  static double mean(const std::vector<double>& values) {
    double sum = 0.0;
    for (const double v : values)
      sum += v;
    return sum / static_cast<double>(values.size());
  }
  /// Population variance.
  static double variance(const std::vector<double>& values) {
    const double m = mean(values);
    double sum = 0.0;
    for (const double v : values)
      sum += (v - m) * (v - m);
    return sum / static_cast<double>(values.size());
  }
  static double fraction_below(const std::vector<double>& values, double x) {
    const auto count = std::count_if(values.begin(), values.end(), [x](double v) { return v < x; });
    return static_cast<double>(count) / static_cast<double>(values.size());
  }
};
using RandomPrecisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RandomStatistics, RandomPrecisions);

TYPED_TEST(RandomStatistics, UniformHasTheMoments) {
  const std::vector<double> u = this->draw(Distribution::Default);
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 0.0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 1.0);
  // Mean 1/2 (sd 1/sqrt(12)); variance 1/12, whose estimate has sd sqrt(1/80 - 1/144).
  EXPECT_NEAR(this->mean(u), 0.5, tolerance(std::sqrt(1.0 / 12)));
  EXPECT_NEAR(this->variance(u), 1.0 / 12, tolerance(std::sqrt(1.0 / 80 - 1.0 / 144)));
  const std::vector<double> shifted = this->draw(Distribution::uniform(-2.0, 3.0));
  EXPECT_GE(*std::min_element(shifted.begin(), shifted.end()), -2.0);
  EXPECT_LT(*std::max_element(shifted.begin(), shifted.end()), 3.0);
  EXPECT_NEAR(this->mean(shifted), 0.5, tolerance(5.0 / std::sqrt(12.0)));
}

TYPED_TEST(RandomStatistics, NormalHasTheMomentsAndQuantiles) {
  const std::vector<double> z = this->draw(Distribution::normal(0.0, 1.0));
  EXPECT_NEAR(this->mean(z), 0.0, tolerance(1.0));
  // The variance's estimate has sd sqrt(2) for a standard normal.
  EXPECT_NEAR(this->variance(z), 1.0, tolerance(std::numbers::sqrt2));
  for (const double q : {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0}) {
    const double p = 0.5 * std::erfc(-q / std::numbers::sqrt2);
    EXPECT_NEAR(this->fraction_below(z, q), p, tolerance(std::sqrt(p * (1 - p)))) << q;
  }
  const std::vector<double> scaled = this->draw(Distribution::normal(2.0, 3.0));
  EXPECT_NEAR(this->mean(scaled), 2.0, tolerance(3.0));
  EXPECT_NEAR(this->variance(scaled), 9.0, tolerance(9.0 * std::numbers::sqrt2));
}

TYPED_TEST(RandomStatistics, BernoulliHasTheRate) {
  for (const double p : {0.0, 0.3, 0.5, 1.0}) {
    const std::vector<double> b = this->draw(Distribution::bernoulli(p));
    EXPECT_EQ(std::count_if(b.begin(), b.end(), [](double v) { return v != 0.0 && v != 1.0; }), 0);
    EXPECT_NEAR(this->mean(b), p, tolerance(std::sqrt(p * (1 - p)))) << p;
  }
}

TEST(RandomElement, IntegersTakeTheFloorOfTheDoubleDraw) {
  const Distribution d = Distribution::uniform(-5.0, 5.0);
  const Distribution coin = Distribution::bernoulli(0.3);
  for (uint64_t i = 0; i < 1000; ++i) {
    const double value = random_value<double>(d, kKey, i);
    EXPECT_EQ(random_element<int32_t>(d, kKey, i), std::floor(value));
    EXPECT_EQ(random_element<double>(d, kKey, i), value);
    EXPECT_EQ(random_element<float>(d, kKey, i), random_value<float>(d, kKey, i));
    EXPECT_EQ(random_element<bool>(coin, kKey, i), random_value<double>(coin, kKey, i));
  }
}

/// The first tensor a device draws after seed(seed).
TensorData first_draw(const Device& device, uint64_t seed, const Distribution& d, DType dtype) {
  device.seed(seed);
  const TensorCreationOptions options = TensorCreationOptions(device).with_dtype(dtype);
  return ops::into_data(ops::random(Shape({3, 50}), d, options, kind_of(dtype)));
}

/// Element i of a T tensor drawn from d under key, converted as the backends convert it.
template <typename T>
std::vector<T> expected_elements(const Distribution& d, uint64_t key, std::size_t n) {
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = ember::detail::convert_element<T>(random_element<T>(d, key, i));
  return values;
}

TEST(RandomOnDevices, EveryDeviceDrawsTheSameBits) {
  constexpr uint64_t kSeed = 1234;
  // docs/random.md: the first op after seed(s) draws with the key mix64(mix64(s)).
  constexpr uint64_t kFirstKey = mix64(mix64(kSeed));
  const Distribution distributions[] = {Distribution::uniform(-2.0, 3.0),
                                        Distribution::normal(1.0, 2.0),
                                        Distribution::bernoulli(0.3)};
  for (const Distribution& d : distributions) {
    const TensorData f32 = first_draw(Device::ndarray(), kSeed, d, DType::F32);
    const TensorData f64 = first_draw(Device::ndarray(), kSeed, d, DType::F64);
    const TensorData i32 = first_draw(Device::ndarray(), kSeed, d, DType::I32);
    EXPECT_EQ(f32.to_vector<float>(), expected_elements<float>(d, kFirstKey, 150));
    EXPECT_EQ(f64.to_vector<double>(), expected_elements<double>(d, kFirstKey, 150));
    EXPECT_EQ(i32.to_vector<int32_t>(), expected_elements<int32_t>(d, kFirstKey, 150));
    for (const Device& device : Device::enumerate(DeviceFilter::all())) {
      SCOPED_TRACE(device.name());
      EXPECT_EQ(first_draw(device, kSeed, d, DType::F32), f32);
      if (device.supports_dtype(DType::F64)) {
        EXPECT_EQ(first_draw(device, kSeed, d, DType::F64), f64);
      }
      EXPECT_EQ(first_draw(device, kSeed, d, DType::I32), i32);
    }
  }
}

}  // namespace
}  // namespace ember::ir::random_test
