// Property checks of the node suite's random-output cases (onnx_node_random.h).
#include "onnx_node_random.h"

#include <cmath>
#include <sstream>

namespace ember::test {
namespace {

/// How many times each random case runs on each device. At 5 standard deviations, the total of
/// the suite's Bernoulli cases (10 elements, 640 draws) shows every probability shifted by 0.09,
/// Dropout's (60 elements, 3840 draws) a shift of 0.035; an element's own count shows its
/// probability off by 0.3 (p = 0.5), so a p taken as 1 - p shows where p is far from 0.5.
constexpr int kRandomRuns = 64;

/// One run's outcome per element: 1 (drawn / kept), 0, or -1 where the outputs cannot tell (a
/// dropped zero without a mask); empty with why set when a value is not one the op allows.
struct Draws {
  std::vector<int> hits;
  std::vector<double> probability;
  std::string why;
};

Draws bernoulli_draws(const std::vector<TensorData>& inputs, const std::vector<TensorData>& got,
                      bool complement) {
  Draws draws{{}, inputs[0].to_vector<double>(), {}};
  for (double& p : draws.probability)
    p = complement ? 1 - p : p;
  for (double value : got[0].to_vector<double>()) {
    if (value != 0.0 && value != 1.0) return {{}, {}, "a value " + std::to_string(value)};
    draws.hits.push_back(value == 1.0 ? 1 : 0);
  }
  return draws;
}

Draws dropout_draws(const std::vector<TensorData>& inputs, const std::vector<TensorData>& got,
                    Tolerance tolerance) {
  const double ratio = inputs.size() > 1 ? inputs[1].to_vector<double>()[0] : 0.5;
  const std::vector<double> x = inputs[0].to_vector<double>(), y = got[0].to_vector<double>();
  const std::vector<double> mask =
      got.size() > 1 ? got[1].to_vector<double>() : std::vector<double>(x.size());
  Draws draws{{}, std::vector<double>(x.size(), 1.0 - ratio), {}};
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double scaled = x[i] / (1.0 - ratio);
    const bool dropped = y[i] == 0.0;
    if (!dropped && std::abs(y[i] - scaled) > tolerance.atol + tolerance.rtol * std::abs(scaled))
      return {{}, {}, "element " + std::to_string(i) + " is " + std::to_string(y[i])};
    if (got.size() == 1) {
      draws.hits.push_back(x[i] == 0.0 ? -1 : (dropped ? 0 : 1));  // a zero kept reads as 0
    } else if (mask[i] != 0.0 ? dropped && x[i] != 0.0 : !dropped) {
      return {{}, {}, "the mask disagrees at element " + std::to_string(i)};
    } else {
      draws.hits.push_back(mask[i] != 0.0 ? 1 : 0);
    }
  }
  return draws;
}

/// Why got's outputs differ from expected's in count, shape or dtype; empty when they agree.
std::string layout_difference(const std::vector<TensorData>& got,
                              const std::vector<TensorData>& expected) {
  std::ostringstream why;
  if (got.size() != expected.size()) {
    why << got.size() << " outputs, expected " << expected.size();
  }
  for (std::size_t k = 0; why.str().empty() && k < got.size(); ++k) {
    if (got[k].shape() != expected[k].shape() || got[k].dtype() != expected[k].dtype())
      why << "output " << k << " is " << got[k].dtype() << " " << got[k].shape() << ", expected "
          << expected[k].dtype() << " " << expected[k].shape();
  }
  return why.str();
}

/// Why count hits of n draws of probability p (the mean's) are implausible: more than 5
/// standard deviations (+0.5) from n p; empty when within.
std::string binomial_outlier(const std::string& what, double count, double n, double mean_p,
                             double variance) {
  const double bound = 5 * std::sqrt(variance) + 0.5;
  if (std::abs(count - n * mean_p) <= bound) return {};
  std::ostringstream why;
  why << what << ": " << count << " of " << n << " draws hit, probability " << mean_p
      << " (bound +-" << bound << ")";
  return why.str();
}

/// Each element's count of hits over the runs, then their total (which a small shift of every
/// probability moves past its bound), against their binomial bounds; why not within.
std::string implausible_counts(const std::vector<int>& counts, const std::vector<int>& seen,
                               const std::vector<double>& probability) {
  double total = 0, draws = 0, expected = 0, variance = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double n = seen[i], p = probability[i];
    const std::string why =
        binomial_outlier("element " + std::to_string(i), counts[i], n, p, n * p * (1 - p));
    if (!why.empty()) return why;
    total += counts[i];
    draws += n;
    expected += n * p;
    variance += n * p * (1 - p);
  }
  return binomial_outlier("all elements", total, draws, draws > 0 ? expected / draws : 0, variance);
}

std::string check_on(const Device& device, const onnx::Model& model, RandomProperty property,
                     const std::vector<TensorData>& inputs, const std::vector<TensorData>& expected,
                     Tolerance tolerance) {
  std::vector<int> counts, seen;
  std::vector<double> probability;
  for (int run = 0; run < kRandomRuns; ++run) {
    device.seed(static_cast<uint64_t>(run) + 1);
    const std::vector<TensorData> got = model.run(device, inputs);
    if (std::string why = layout_difference(got, expected); !why.empty()) return why;
    const Draws draws =
        property == RandomProperty::Dropout
            ? dropout_draws(inputs, got, tolerance)
            : bernoulli_draws(inputs, got, property == RandomProperty::BernoulliComplement);
    if (!draws.why.empty()) return "run " + std::to_string(run) + ": " + draws.why;
    counts.resize(draws.hits.size());
    seen.resize(draws.hits.size());
    probability = draws.probability;
    for (std::size_t i = 0; i < draws.hits.size(); ++i) {
      counts[i] += std::max(draws.hits[i], 0);
      seen[i] += draws.hits[i] >= 0 ? 1 : 0;
    }
  }
  return implausible_counts(counts, seen, probability);
}

}  // namespace

const std::map<std::string, RandomProperty>& random_cases() {
  static const std::map<std::string, RandomProperty> cases = {
      {"test_bernoulli", RandomProperty::Bernoulli},
      {"test_bernoulli_double", RandomProperty::Bernoulli},
      {"test_bernoulli_seed", RandomProperty::Bernoulli},
      {"test_bernoulli_expanded", RandomProperty::BernoulliComplement},
      {"test_bernoulli_double_expanded", RandomProperty::BernoulliComplement},
      {"test_bernoulli_seed_expanded", RandomProperty::BernoulliComplement},
      {"test_training_dropout", RandomProperty::Dropout},
      {"test_training_dropout_default", RandomProperty::Dropout},
      {"test_training_dropout_mask", RandomProperty::Dropout},
      {"test_training_dropout_default_mask", RandomProperty::Dropout},
  };
  return cases;
}

std::string check_random_case(const onnx::Model& model, RandomProperty property,
                              const std::vector<TensorData>& inputs,
                              const std::vector<TensorData>& expected, Tolerance tolerance) {
  for (const Device& device : {Device::cpu(), Device::ndarray()}) {
    std::string why;
    try {
      why = check_on(device, model, property, inputs, expected, tolerance);
    } catch (const Error& e) {
      why = e.what();
    }
    if (!why.empty()) return device.name() + ": " + why;
  }
  return {};
}

}  // namespace ember::test
