// Rules of the ops without inputs: full, arange, random.
#include <cmath>
#include <limits>

#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

/// The number of values start, start + step, ... before end: ceil((end - start) / step), or 0
/// when step points away from end. Computed on magnitudes in uint64, where end - start cannot
/// overflow.
uint64_t arange_length(const Arange& arange) {
  const bool up = arange.step > 0;
  if (up ? arange.end <= arange.start : arange.end >= arange.start) return 0;
  const auto start = static_cast<uint64_t>(arange.start);
  const auto end = static_cast<uint64_t>(arange.end);
  const auto step = static_cast<uint64_t>(arange.step);
  const uint64_t distance = up ? end - start : start - end;
  const uint64_t stride = up ? step : 0 - step;
  return distance / stride + (distance % stride != 0);
}

void check_distribution(const Op& op, const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::Default:
      return;
    case Distribution::Kind::Uniform:
      require(std::isfinite(d.a) && std::isfinite(d.b) && d.a <= d.b, op, "uniform low ", d.a,
              " and high ", d.b, " must be finite with low <= high");
      return;
    case Distribution::Kind::Normal:
      require(std::isfinite(d.a) && std::isfinite(d.b) && d.b >= 0, op, "normal mean ", d.a,
              " and std ", d.b, " must be finite with std >= 0");
      return;
    case Distribution::Kind::Bernoulli:
      require(d.a >= 0 && d.a <= 1, op, "bernoulli probability ", d.a, " is not in [0, 1]");
      return;
  }
  // Only reachable with a kind decoded from untrusted bytes.
  fail(op, "unknown distribution kind ", static_cast<int>(d.kind));
}

}  // namespace

Outputs infer_rule(const Full& full, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 0);
  check_new_shape(op, full.shape);
  check_scalar_fits(op, full.value, full.dtype);
  return {{full.shape, full.dtype}};
}

Outputs infer_rule(const Arange& arange, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 0);
  check_dtype(op, arange.dtype, kIntDTypes);
  require(arange.step != 0, op, "step ", arange.step, " must be nonzero");
  const uint64_t length = arange_length(arange);
  require(length <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), op, "range ",
          arange.start, "..", arange.end, " has more elements than int64 can count");
  if (length > 0) {
    // Unsigned arithmetic wraps where the signed product would overflow; the true last value
    // lies between start and end, so the wrapped result converts back exactly.
    const auto last = static_cast<int64_t>(static_cast<uint64_t>(arange.start) +
                                           (length - 1) * static_cast<uint64_t>(arange.step));
    require(
        scalar_fits(Scalar(arange.start), arange.dtype) && scalar_fits(Scalar(last), arange.dtype),
        op, "values ", arange.start, " to ", last, " do not fit in ", arange.dtype);
  }
  return {{Shape{static_cast<int64_t>(length)}, arange.dtype}};
}

Outputs infer_rule(const Random& random, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 0);
  check_new_shape(op, random.shape);
  // Only Bernoulli draws nothing but 0 and 1, the values a bool holds.
  require(random.distribution.kind == Distribution::Kind::Bernoulli || !is_bool(random.dtype), op,
          "dtype ", random.dtype, " needs the Bernoulli distribution");
  check_distribution(op, random.distribution);
  return {{random.shape, random.dtype}};
}

}  // namespace ember::ir::rules
