#include "support/op_values.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ember::test {
namespace {

/// Uniform on [0, 1) from 53 bits: std::mt19937_64's output is fixed by the standard, unlike
/// std::uniform_real_distribution's, so the values are the same with every standard library.
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

/// The first value and step of a grid for dtype: integer dtypes round inwards and step by at
/// least 1, unsigned ones start at 0 or above.
std::pair<double, double> grid_start_and_step(DType dtype, const ValueSpec& spec, double step) {
  if (!is_int(dtype)) return {spec.lo, step};
  const double lo = is_unsigned_int(dtype) ? std::max(spec.lo, 0.0) : spec.lo;
  return {std::ceil(lo), std::max(1.0, std::round(step))};
}

/// The values an element may take when they form a finite grid (ints, bools, stepped reals).
std::vector<double> grid(DType dtype, const ValueSpec& spec) {
  if (is_bool(dtype)) return spec.nonzero ? std::vector<double>{1.0} : std::vector<double>{0, 1};
  const auto [lo, step] = grid_start_and_step(dtype, spec, spec.step);
  std::vector<double> values;
  for (int k = 0; lo + k * step <= spec.hi; ++k) {
    const double v = lo + k * step;
    if (!(spec.nonzero && v == 0.0)) values.push_back(v);
  }
  if (values.empty()) throw std::logic_error("[make_values] empty value range");
  return values;
}

/// A real in [lo, hi]; with nonzero, |v| >= 0.5 (the magnitude shifted, the sign kept).
double real_value(std::mt19937_64& rng, const ValueSpec& spec) {
  const double v = spec.lo + (spec.hi - spec.lo) * uniform01(rng);
  if (!spec.nonzero || std::abs(v) >= 0.5) return v;
  return std::copysign(0.5 + std::abs(v), v);
}

std::vector<double> distinct_values(std::size_t n, DType dtype, const ValueSpec& spec,
                                    std::mt19937_64& rng) {
  const auto [lo, step] = grid_start_and_step(dtype, spec, spec.step == 0.0 ? 1.0 : spec.step);
  std::vector<double> ranks(n);
  std::iota(ranks.begin(), ranks.end(), 0.0);
  // Fisher-Yates with our own draws (std::shuffle's algorithm is unspecified).
  for (std::size_t i = n; i > 1; --i)
    std::swap(ranks[i - 1], ranks[rng() % i]);
  for (double& r : ranks)
    r = lo + step * r;
  return ranks;
}

}  // namespace

TensorData make_values(const Shape& shape, DType dtype, const ValueSpec& spec, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto n = static_cast<std::size_t>(shape.num_elements());
  if (spec.distinct && !is_bool(dtype)) return {distinct_values(n, dtype, spec, rng), shape, dtype};
  std::vector<double> values(n);
  const bool on_grid = spec.step != 0.0 || !is_float(dtype);
  const std::vector<double> choices = on_grid ? grid(dtype, spec) : std::vector<double>{};
  for (double& v : values) {
    v = on_grid ? choices[rng() % choices.size()] : real_value(rng, spec);
  }
  return {values, shape, dtype};
}

uint64_t seed_for(std::string_view case_name, int input) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : case_name)
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return hash ^ static_cast<uint64_t>(input);
}

}  // namespace ember::test
