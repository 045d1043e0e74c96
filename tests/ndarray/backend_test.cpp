// The NdArrayBackend as a backend: identity, dtypes, data round trips, foreign buffers.
#include <gtest/gtest.h>

#include <memory>

#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

TEST(NdArrayBackend, DescribesItself) {
  const NdArrayBackend backend;
  EXPECT_EQ(backend.name(), "ndarray");
  EXPECT_EQ(backend.description(), "reference CPU backend (plain loops)");
  for (const DType d : kAllDTypes)
    EXPECT_TRUE(backend.supports_dtype(d)) << d;
}

TEST(NdArrayBackend, WriteThenReadRoundTrips) {
  NdArrayBackend backend;
  const TensorData data(std::vector<uint16_t>{1, 2, 65535}, {3, 1});
  const backend::BufferPtr buffer = backend.write(data);
  EXPECT_EQ(backend.read({buffer, {data.shape(), data.dtype()}}), data);
}

TEST(NdArrayBackend, RejectsBuffersOfOtherBackends) {
  NdArrayBackend backend;
  const backend::Operand foreign{std::make_shared<backend::Buffer>(), {{1}, DType::F32}};
  EXPECT_THROW(backend.read(foreign), InvalidArgument);
}

}  // namespace
}  // namespace ember::ndarray::test
