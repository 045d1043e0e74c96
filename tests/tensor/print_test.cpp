#include <sstream>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

template <typename T>
std::string printed(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

TEST(Print, ShapeDtypeDeviceAndNestedValues) {
  EXPECT_EQ(printed(floats<2>({1, 2, 3, 4, 5, 6}, Shape{2, 3})),
            "Tensor { shape: [2, 3], dtype: f32, device: ndarray, data: [[1, 2, 3], [4, 5, 6]] }");
  EXPECT_EQ(printed(bools<1>({true, false}, Shape{2}).to_device(device().autodiff())),
            "Tensor { shape: [2], dtype: bool, device: autodiff(ndarray), data: [true, false] }");
  EXPECT_EQ(printed(ints<1>({-3}, Shape{1})),
            "Tensor { shape: [1], dtype: i64, device: ndarray, data: [-3] }");
}

TEST(Print, LargeTensorsAreAbbreviated) {
  const std::string text = printed(Tensor<1>::zeros({2000}, device()));
  EXPECT_NE(text.find("..."), std::string::npos) << text;
  EXPECT_LT(text.size(), 200u) << text;
}

TEST(Print, UndefinedTensor) {
  EXPECT_EQ(printed(Tensor<1>()), "Tensor { undefined }");
}

TEST(Print, TensorKind) {
  EXPECT_EQ(printed(TensorKind::Float), "Float");
  EXPECT_EQ(printed(TensorKind::Int), "Int");
  EXPECT_EQ(printed(TensorKind::Bool), "Bool");
  EXPECT_EQ(kind_of(DType::BF16), TensorKind::Float);
  EXPECT_EQ(kind_of(DType::U16), TensorKind::Int);
  EXPECT_EQ(kind_of(DType::Bool), TensorKind::Bool);
}

}  // namespace
}  // namespace ember::test
