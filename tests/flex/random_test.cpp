// flex's random tensors drawn a vector of elements at a time (simd_random.cpp) against the
// scalar stream of ir/random.h, bit for bit, on every vector target this CPU runs: whole tensors
// against ndarray (lengths around the vector widths, and several chunks of the pool),
// simd::random itself at element indices past 2^32, where the counter's high word is in play, and
// the vector normals for every uniform.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "backends/flex/simd.h"
#include "flex_test_util.h"
#include "ir/random.h"

namespace ember::flex::test {
namespace {

/// The distributions of each path of simd::random (the uniform and the normal fall back to the
/// scalar formulas on targets without FMA).
const std::vector<Distribution>& distributions() {
  static const std::vector<Distribution> all = {
      Distribution::Default,        Distribution::uniform(-3.0, 5.0),
      Distribution::bernoulli(0.1), Distribution::bernoulli(0.5),
      Distribution::bernoulli(0.9), Distribution::normal(1.0, 2.0)};
  return all;
}

constexpr uint64_t kKeys[] = {0, 0x0123456789ABCDEFull, ir::mix64(7)};

std::string describe(const Distribution& d, uint64_t key) {
  return "distribution " + std::to_string(static_cast<int>(d.kind)) + " (" + std::to_string(d.a) +
         ", " + std::to_string(d.b) + "), key " + std::to_string(key);
}

/// "" where actual holds expected's bits (-0 is not 0), else the first index that differs and
/// both values there.
std::string difference(const std::vector<float>& actual, const std::vector<float>& expected) {
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::bit_cast<uint32_t>(actual[i]) != std::bit_cast<uint32_t>(expected[i])) {
      std::ostringstream out;
      out << "element " << i << ": " << std::hexfloat << actual[i] << " instead of " << expected[i];
      return out.str();
    }
  }
  return "";
}

/// Calls body() once per vector target this CPU runs, each selected in turn.
template <typename Body>
void on_every_target(const Body& body) {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    body();
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
}

TEST(FlexRandom, FloatTensorsEqualTheReferenceOnEveryVectorTarget) {
  // Lengths below, at and past a vector of 4, 8 and 16 lanes, and several chunks of the pool
  // with a partial one (each chunk starts a vector of its own, f16 and bf16 blocks of 1024).
  const std::vector<int64_t> lengths = {0, 1, 15, 16, 17, 1000, 4099, 3 * 32768 + 1029};
  ndarray::NdArrayBackend reference;
  for (const DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    for (const Distribution& d : distributions()) {
      for (const uint64_t key : kKeys) {
        for (const int64_t n : lengths) {
          const ir::Random op{Shape({n}), dtype, d, key};
          const TensorData expected = run_on(reference, op, {}).at(0);
          on_every_target([&] {
            FlexBackend flex;
            EXPECT_EQ(run_on(flex, op, {}).at(0), expected)
                << dtype_name(dtype) << ", " << describe(d, key) << ", " << n << " elements";
          });
        }
      }
    }
  }
}

TEST(FlexRandom, VectorDrawsCarryTheIndexIntoTheCountersHighWord) {
  // Runs of 37 elements (whole vectors and a partial one) that start below 2^32 and cross it in
  // the middle of a vector, start at odd offsets beyond it, and end at the last index.
  constexpr int64_t kRun = 37;
  const std::vector<uint64_t> firsts = {(uint64_t{1} << 32) - 5,
                                        (uint64_t{1} << 32) - 16,
                                        (uint64_t{1} << 32) + 3,
                                        (uint64_t{5} << 32) - 1,
                                        (uint64_t{1} << 40) + 12345,
                                        0xFFFFFFFF00000007ull,
                                        std::numeric_limits<uint64_t>::max() - (kRun - 1)};
  for (const Distribution& d : distributions()) {
    for (const uint64_t key : kKeys) {
      for (const uint64_t first : firsts) {
        std::vector<float> expected(kRun);
        for (int64_t i = 0; i < kRun; ++i)
          expected[static_cast<std::size_t>(i)] =
              ir::random_element<float>(d, key, first + static_cast<uint64_t>(i));
        on_every_target([&] {
          std::vector<float> actual(kRun);
          simd::random(d, key, first, actual.data(), kRun);
          EXPECT_EQ(difference(actual, expected), "")
              << describe(d, key) << ", from element " << first;
        });
      }
    }
  }
}

TEST(FlexRandom, VectorNormalsEqualTheScalarOnesForEveryUniform) {
  // Every one of the 2^24 radii 1 - u and angles v an f32 draw can have, each once, paired by a
  // bijection of the 24 bits so that all of log_f32's and cos_turns_f32's paths and the angle's
  // ties (v = (2j + 1) / 8, where the quarter turns round to even) meet varied partners.
  constexpr int64_t kUniforms = int64_t{1} << 24;
  constexpr int64_t kBlock = int64_t{1} << 20;
  std::vector<float> radius(kBlock), angle(kBlock), expected(kBlock), actual(kBlock);
  for (int64_t start = 0; start < kUniforms; start += kBlock) {
    for (int64_t j = 0; j < kBlock; ++j) {
      const auto k = static_cast<uint32_t>(start + j);
      const auto at = static_cast<std::size_t>(j);
      radius[at] = 1.0f - ir::uniform01<float>(k << 8, 0);
      angle[at] = ir::uniform01<float>((k * 0x9E3779u) << 8, 0);  // odd: a bijection mod 2^24
      expected[at] = ir::standard_normal(radius[at], angle[at]);
    }
    on_every_target([&] {
      simd::standard_normal(radius.data(), angle.data(), actual.data(), kBlock);
      EXPECT_EQ(difference(actual, expected), "") << "uniforms from " << start;
    });
  }
}

TEST(FlexRandom, VectorNormalsEqualTheScalarOnesForRadiiOfEveryExponent) {
  // The vectors' frexp reads the exponent from the bits: radii m 2^-k for every exponent of a
  // normal float in (0, 1] (k up to 125) and mantissas m across [1, 2), each against an angle
  // of each quadrant, beyond the radii down to 2^-24 that draws produce.
  std::vector<float> radius, angle;
  for (int k = 0; k <= 125; ++k) {
    for (int j = 0; j < 16; ++j) {
      radius.push_back(std::ldexp(1.0f + static_cast<float>(j) / 16.0f, -k - (j > 0 ? 1 : 0)));
      angle.push_back(static_cast<float>((k * 16 + j) % 97) / 97.0f);
    }
  }
  std::vector<float> expected(radius.size()), actual(radius.size());
  for (std::size_t i = 0; i < radius.size(); ++i)
    expected[i] = ir::standard_normal(radius[i], angle[i]);
  on_every_target([&] {
    simd::standard_normal(radius.data(), angle.data(), actual.data(),
                          static_cast<int64_t>(radius.size()));
    EXPECT_EQ(difference(actual, expected), "");
  });
}

TEST(FlexRandom, BernoulliThresholdIsTheDoubleComparison) {
  // ir::bernoulli_threshold_f32 (the vectors' and the shaders' integer form of u < p) against
  // the comparison itself, for every u at and next to the threshold of probabilities that are
  // multiples of 2^-24, between them, and at the ends.
  for (const double p :
       {0.0, 0x1p-24, 0x1.8p-24, 0.1, 0.5, 0.9, 1.0 - 0x1p-24, 1.0 - 0x1p-26, 1.0}) {
    const uint32_t threshold = ir::bernoulli_threshold_f32(p);
    for (const int64_t k : {int64_t{threshold} - 1, int64_t{threshold}, int64_t{threshold} + 1}) {
      if (k < 0 || k >= (int64_t{1} << 24)) continue;
      const float u = ir::uniform01<float>(static_cast<uint32_t>(k) << 8, 0);
      EXPECT_EQ(k < threshold, u < p) << "p " << p << ", k " << k;
    }
  }
}

}  // namespace
}  // namespace ember::flex::test
