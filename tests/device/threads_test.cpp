// ember::num_threads / set_num_threads: the CPU backends' thread count, set at run time.
#include <gtest/gtest.h>

#include <vector>

#include "backends/registry.h"
#include "ember/device.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "ember/threads.h"

namespace ember {
namespace {

TEST(Threads, SetNumThreadsChangesTheCountAndKernelsStillAgree) {
  const int original = num_threads();
  ASSERT_GE(original, 1);
  EXPECT_THROW(set_num_threads(0), InvalidArgument);
  EXPECT_THROW(set_num_threads(-4), InvalidArgument);
  // Integers in f64: every order of summation gives the exact sum, n (n - 1) / 2.
  constexpr int64_t n = 1 << 20;
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[static_cast<std::size_t>(i)] = static_cast<double>(i);
  const TensorData data(values, Shape{n});
  const double expected = static_cast<double>(n) * static_cast<double>(n - 1) / 2;
  for (const int threads : {1, 3, original}) {
    set_num_threads(threads);
    if (backend::is_compiled(DeviceType::Kind::Flex)) {
      EXPECT_EQ(num_threads(), threads);
    }
    for (const Device& device : Device::enumerate(DeviceFilter::all())) {
      EXPECT_EQ(Tensor<1>::from_data(data, device).sum().into_scalar<double>(), expected)
          << device << " on " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace ember
