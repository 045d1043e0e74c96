#include "support/pattern.h"

#include <cmath>
#include <vector>

#include "ember/tensor_data.h"
#include "ember/tensor_ops.h"
#include "ember/tensor_options.h"

namespace ember::bench {

namespace {

constexpr int64_t kMultiplier = 7919;
constexpr int64_t kSeedStep = 12345;
constexpr int64_t kModulus = 65521;       // prime: consecutive elements never repeat a value
constexpr float kHalfModulus = 32760.5F;  // exact in f32

}  // namespace

TensorHandle pattern(const Shape& shape, int64_t seed, const Device& device) {
  // Computed on the host in one pass (faster to set up than arange and four ops on the device).
  std::vector<float> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int64_t residue = (kMultiplier * static_cast<int64_t>(i) + kSeedStep * seed) % kModulus;
    values[i] = static_cast<float>(residue) / kHalfModulus - 1.0F;
  }
  return ops::from_data(TensorData(values, shape),
                        TensorCreationOptions(device).with_dtype(DType::F32), TensorKind::Float);
}

double checksum(const TensorHandle& x) {
  double sum = 0;
  for (double v : ops::into_data(x).to_vector<double>())
    sum += std::abs(v);
  return sum;
}

}  // namespace ember::bench
