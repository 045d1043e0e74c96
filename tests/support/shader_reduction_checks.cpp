#include "support/shader_reduction_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backends/shader/host_runs.h"
#include "ember/activation_functions.h"
#include "ember/functional.h"
#include "ember/tensor.h"
#include "ember/tensor_ops.h"
#include "support/same_bits.h"

namespace ember::test {
namespace {

using HostCounts = std::map<std::string, uint64_t>;

/// The reductions and softmaxes (by name, with their counts) sent to the host since before. The
/// others (creation, indexing) have kernels of their own, or none yet.
HostCounts sent_to_host_since(const HostCounts& before) {
  static const std::set<std::string> kernel_ops = {"sum", "mean",   "prod",    "max",
                                                   "min", "argmax", "argmin",  "var",
                                                   "any", "all",    "softmax", "log_softmax"};
  HostCounts sent;
  for (const auto& [name, count] : shader::HostRuns::counts_so_far()) {
    const auto it = before.find(name);
    const uint64_t earlier = it == before.end() ? 0 : it->second;
    if (count > earlier && kernel_ops.contains(name)) sent[name] = count - earlier;
  }
  return sent;
}

std::string listed(const HostCounts& counts) {
  std::string text;
  for (const auto& [name, count] : counts)
    text += name + " x" + std::to_string(count) + "; ";
  return text;
}

std::string shape_text(const std::vector<int64_t>& dims) {
  std::ostringstream text;
  text << Shape(dims);
  return text.str();
}

int64_t count_of(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (const int64_t d : dims)
    count *= d;
  return count;
}

/// Values of a repeating pattern (ties: the first index must win), NaN, +inf and -inf at a few
/// places when specials.
std::vector<float> pattern(int64_t count, bool specials) {
  std::vector<float> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(static_cast<float>((i * 37) % 101 - 50) / 16.0f);
  if (specials) {
    const float inf = std::numeric_limits<float>::infinity();
    for (int64_t i = 7; i < count; i += 613)
      values[static_cast<std::size_t>(i)] = i % 3 == 0 ? std::nanf("") : i % 3 == 1 ? inf : -inf;
  }
  return values;
}

/// Powers of two of both signs with exponents in [-2, 2] (repeating with period 5): products of
/// them are exact in any order, as long as the exponents' sum stays in range.
std::vector<float> powers_of_two(int64_t count) {
  std::vector<float> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(std::ldexp(i % 7 == 3 ? -1.0f : 1.0f, static_cast<int>(i % 5) - 2));
  return values;
}

/// values as a tensor of dims and dtype on device.
Tensor<3> floats(const std::vector<float>& values, const std::vector<int64_t>& dims,
                 const Device& device, DType dtype = DType::F32) {
  return Tensor<3>::from_data(TensorData(values, Shape(dims)).convert(dtype), device);
}

/// Every reduction this file checks of x (on device) against the same of reference (ndarray).
void expect_float_reductions_match(const Tensor<3>& x, const Tensor<3>& reference,
                                   const std::string& what) {
  const Tolerance f32 = Tolerance::for_dtype(x.dtype());
  EXPECT_TRUE(same_bits_or_both_nan(x.max().into_data(), reference.max().into_data())) << what;
  EXPECT_TRUE(same_bits_or_both_nan(x.min().into_data(), reference.min().into_data())) << what;
  EXPECT_EQ(x.any().into_data(), reference.any().into_data()) << what;
  EXPECT_EQ(x.all().into_data(), reference.all().into_data()) << what;
  for (int64_t dim = 0; dim < 3; ++dim) {
    const std::string where = what + " dim " + std::to_string(dim);
    EXPECT_TRUE(
        same_bits_or_both_nan(x.max_dim(dim).into_data(), reference.max_dim(dim).into_data()))
        << where;
    EXPECT_TRUE(
        same_bits_or_both_nan(x.min_dim(dim).into_data(), reference.min_dim(dim).into_data()))
        << where;
    EXPECT_EQ(x.argmax(dim).into_data(), reference.argmax(dim).into_data()) << where;
    EXPECT_EQ(x.argmin(dim).into_data(), reference.argmin(dim).into_data()) << where;
    EXPECT_EQ(x.any_dim(dim).into_data(), reference.any_dim(dim).into_data()) << where;
    EXPECT_EQ(x.all_dim(dim).into_data(), reference.all_dim(dim).into_data()) << where;
    EXPECT_EQ(x.greater_elem(2.0).any_dim(dim).into_data(),
              reference.greater_elem(2.0).any_dim(dim).into_data())
        << where;
    EXPECT_EQ(x.greater_elem(-3.0).all_dim(dim).into_data(),
              reference.greater_elem(-3.0).all_dim(dim).into_data())
        << where;
    EXPECT_TRUE(x.var(dim).into_data().approx_equal(reference.var(dim).into_data(), f32)) << where;
    EXPECT_TRUE(
        x.var_biased(dim).into_data().approx_equal(reference.var_biased(dim).into_data(), f32))
        << where;
  }
}

/// Products of powers of two (exact whatever the order) along every dim and over the whole.
void expect_products_match(const std::vector<int64_t>& dims, const Device& device, DType dtype) {
  const std::vector<float> values = powers_of_two(count_of(dims));
  const Tensor<3> x = floats(values, dims, device, dtype);
  const Tensor<3> reference = floats(values, dims, Device::ndarray(), dtype);
  EXPECT_EQ(x.prod().into_data(), reference.prod().into_data()) << Shape(dims);
  for (int64_t dim = 0; dim < 3; ++dim)
    EXPECT_EQ(x.prod_dim(dim).into_data(), reference.prod_dim(dim).into_data())
        << Shape(dims) << " dim " << dim;
}

/// max, min, argmax, argmin of i32 along every dim.
void expect_integer_extremes_match(const std::vector<int64_t>& dims, const Device& device) {
  std::vector<int32_t> values;
  for (int64_t i = 0; i < count_of(dims); ++i)
    values.push_back(static_cast<int32_t>((i * 37) % 101) - 50);
  const TensorData data(values, Shape(dims));
  const auto x = Tensor<3, Int>::from_data(data, device);
  const auto reference = Tensor<3, Int>::from_data(data, Device::ndarray());
  for (int64_t dim = 0; dim < 3; ++dim) {
    EXPECT_EQ(x.max_dim(dim).into_data(), reference.max_dim(dim).into_data()) << dim;
    EXPECT_EQ(x.min_dim(dim).into_data(), reference.min_dim(dim).into_data()) << dim;
    EXPECT_EQ(x.argmax(dim).into_data(), reference.argmax(dim).into_data()) << dim;
    EXPECT_EQ(x.argmin(dim).into_data(), reference.argmin(dim).into_data()) << dim;
  }
}

}  // namespace

void expect_reductions_run_on_the_device(const Device& device,
                                         std::initializer_list<DType> float_dtypes) {
  const HostCounts before = shader::HostRuns::counts_so_far();
  // Odd sizes; a lane of one element; lanes of several chunks (4096 elements) strided along the
  // first, middle and last dim; one long lane.
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{5, 37, 6}, std::vector<int64_t>{2, 1, 3},
        std::vector<int64_t>{3, 9001, 2}, std::vector<int64_t>{9001, 2, 3},
        std::vector<int64_t>{1, 1, 200003}}) {
    for (const DType dtype : float_dtypes) {
      for (const bool specials : {false, true}) {
        const std::vector<float> values = pattern(count_of(dims), specials);
        expect_float_reductions_match(floats(values, dims, device, dtype),
                                      floats(values, dims, Device::ndarray(), dtype),
                                      shape_text(dims) + " " + std::string(dtype_name(dtype)) +
                                          (specials ? " with NaN, inf" : ""));
      }
      expect_products_match(dims, device, dtype);
    }
    expect_integer_extremes_match(dims, device);
  }
  EXPECT_EQ(listed(sent_to_host_since(before)), "");
}

void expect_softmax_runs_on_the_device(const Device& device) {
  const HostCounts before = shader::HostRuns::counts_so_far();
  const Tolerance f32 = Tolerance::for_dtype(DType::F32);
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{5, 37, 6}, std::vector<int64_t>{2, 1000, 3},
        std::vector<int64_t>{1, 1, 1}, std::vector<int64_t>{3, 0, 2},
        std::vector<int64_t>{2, 3, 5000}}) {
    for (const bool specials : {false, true}) {
      const std::vector<float> values = pattern(count_of(dims), specials);
      const Tensor<3> x = floats(values, dims, device);
      const Tensor<3> reference = floats(values, dims, Device::ndarray());
      for (int64_t dim = 0; dim < 3; ++dim) {
        EXPECT_TRUE(activation::softmax(x, dim).into_data().approx_equal(
            activation::softmax(reference, dim).into_data(), f32))
            << Shape(dims) << " dim " << dim << (specials ? " with NaN, inf" : "");
        EXPECT_TRUE(activation::log_softmax(x, dim).into_data().approx_equal(
            activation::log_softmax(reference, dim).into_data(), f32))
            << Shape(dims) << " dim " << dim << (specials ? " with NaN, inf" : "");
      }
    }
  }
  EXPECT_EQ(listed(sent_to_host_since(before)), "");
}

void expect_long_sum_runs_on_the_device(const Device& device) {
  const HostCounts before = shader::HostRuns::counts_so_far();
  const std::vector<int64_t> dims = {1, 1, int64_t{1} << 24};
  const std::vector<float> values = pattern(count_of(dims), false);
  const Tensor<3> x = floats(values, dims, device);
  const Tensor<3> reference = floats(values, dims, Device::ndarray());
  EXPECT_TRUE(x.sum().into_data().approx_equal(reference.sum().into_data(),
                                               Tolerance::for_dtype(DType::F32)));
  EXPECT_EQ(listed(sent_to_host_since(before)), "");
}

void expect_cross_entropy_runs_on_the_device(const Device& device) {
  const std::vector<int64_t> dims = {1, 8, 10};
  const std::vector<float> values = pattern(count_of(dims), false);
  const std::vector<int64_t> classes = {3, 0, 9, 1, 4, 4, 7, 2};
  const auto loss_and_grad = [&](const Device& on) {
    const Tensor<2> logits = floats(values, dims, on.autodiff()).reshape<2>({8, 10}).require_grad();
    const auto targets = Tensor<1, Int>::from_ints(classes, on.autodiff());
    const Tensor<1> loss = module::cross_entropy(logits, targets);
    const Gradients grads = loss.backward();
    return std::pair{loss.into_data(), logits.grad(grads)->into_data()};
  };
  const auto expected = loss_and_grad(Device::ndarray());
  const HostCounts before = shader::HostRuns::counts_so_far();
  const auto actual = loss_and_grad(device);
  const Tolerance f32 = Tolerance::for_dtype(DType::F32);
  EXPECT_TRUE(actual.first.approx_equal(expected.first, f32));
  EXPECT_TRUE(actual.second.approx_equal(expected.second, f32));
  EXPECT_EQ(listed(sent_to_host_since(before)), "");
}

}  // namespace ember::test
