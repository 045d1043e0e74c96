// reduce_to_shape: the gradient of a broadcast, on hand-computed sums.
#include <gtest/gtest.h>

#include "autodiff/rule.h"
#include "ember/error.h"
#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

using autodiff::reduce_to_shape;

/// [[1, 2, 3], [4, 5, 6]].
TensorHandle one_to_six() {
  return upload({f64({1, 2, 3, 4, 5, 6}, {2, 3})}, Device::ndarray()).front();
}

std::vector<double> host_values(const TensorHandle& t) {
  return ops::into_data(t).to_vector<double>();
}

TEST(ReduceToShape, SameShapeIsTheGradientItself) {
  const TensorHandle grad = one_to_six();
  EXPECT_EQ(reduce_to_shape(grad, {2, 3}).impl(), grad.impl());
}

TEST(ReduceToShape, SumsNewLeadingDims) {
  const TensorHandle r = reduce_to_shape(one_to_six(), {3});
  EXPECT_EQ(r.shape(), Shape({3}));
  EXPECT_EQ(host_values(r), (std::vector<double>{5, 7, 9}));  // 1+4, 2+5, 3+6
}

TEST(ReduceToShape, SumsStretchedDimsKeepingThem) {
  const TensorHandle rows = reduce_to_shape(one_to_six(), {2, 1});
  EXPECT_EQ(rows.shape(), Shape({2, 1}));
  EXPECT_EQ(host_values(rows), (std::vector<double>{6, 15}));  // 1+2+3, 4+5+6
  const TensorHandle columns = reduce_to_shape(one_to_six(), {1, 3});
  EXPECT_EQ(columns.shape(), Shape({1, 3}));
  EXPECT_EQ(host_values(columns), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(host_values(reduce_to_shape(one_to_six(), {1, 1})), (std::vector<double>{21}));
}

TEST(ReduceToShape, SumsLeadingAndStretchedDimsTogether) {
  // grad[i][j][k] = 1 + 4i + 2j + k for a [2, 2, 2] grad; shape [2, 1] lines up with dims 1, 2:
  // out[j] = sum over i, k: j = 0: 1+2+5+6 = 14; j = 1: 3+4+7+8 = 22.
  const TensorHandle grad =
      upload({f64({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2})}, Device::ndarray()).front();
  const TensorHandle r = reduce_to_shape(grad, {2, 1});
  EXPECT_EQ(r.shape(), Shape({2, 1}));
  EXPECT_EQ(host_values(r), (std::vector<double>{14, 22}));
}

TEST(ReduceToShape, KeepsTheDType) {
  const TensorHandle grad = ops::cast(one_to_six(), DType::F32);
  EXPECT_EQ(reduce_to_shape(grad, {3}).dtype(), DType::F32);
}

TEST(ReduceToShape, EmptyStretchedDimSumsToZero) {
  const TensorHandle grad = upload({TensorData::zeros({0, 3}, DType::F64)}, Device::ndarray())[0];
  const TensorHandle r = reduce_to_shape(grad, {1, 3});
  EXPECT_EQ(r.shape(), Shape({1, 3}));
  EXPECT_EQ(host_values(r), (std::vector<double>{0, 0, 0}));
}

TEST(ReduceToShape, RejectsAShapeThatDoesNotBroadcast) {
  for (const Shape& shape : {Shape{4}, Shape{2, 2}, Shape{3, 2, 3}}) {
    try {
      reduce_to_shape(one_to_six(), shape);
      ADD_FAILURE() << "accepted " << shape;
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("[reduce_to_shape]", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace ember::test
