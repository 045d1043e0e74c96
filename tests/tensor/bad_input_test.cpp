// Every op family rejects bad shapes, ranks, dims, dtypes, kinds, scalars and indices with an
// InvalidArgument naming the op (in brackets) and the offending value — never a crash. The
// untyped ops:: functions reach the kind errors the typed API rejects at compile time.
#include <cstdint>
#include <limits>
#include <optional>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TensorHandle i64(std::vector<double> v, Shape shape) {
  return handle(v, shape, DType::I64);
}
TensorHandle boolean(Shape shape) {
  return ops::zeros(shape, device(), TensorKind::Bool);
}
TensorCreationOptions with(DType dtype) {
  return TensorCreationOptions(device()).with_dtype(dtype);
}

TEST(BadInput, Creation) {
  EXPECT_INVALID(ops::zeros({2}, with(DType::I32), TensorKind::Float), "[zeros]", "i32", "Float");
  EXPECT_INVALID(ops::ones({2}, with(DType::F32), TensorKind::Int), "[ones]", "f32", "Int");
  EXPECT_INVALID(ops::zeros({2, -2}, device(), TensorKind::Float), "[zeros]", "-2");
  EXPECT_INVALID(ops::empty({}, device(), TensorKind::Float), "[empty]", "rank 0");
  EXPECT_INVALID(ops::zeros({kMax, kMax}, device(), TensorKind::Float), "[zeros]", "too many");
  EXPECT_INVALID(ops::full({2}, 2.5, device(), TensorKind::Int), "[full]", "2.5");
  EXPECT_INVALID(ops::full({2}, 300, with(DType::I8), TensorKind::Int), "[full]", "300", "i8");
  EXPECT_INVALID(ops::full({2}, -1, with(DType::U8), TensorKind::Int), "[full]", "-1", "u8");
  EXPECT_INVALID(ops::full({2}, 2, device(), TensorKind::Bool), "[full]", "2", "Bool");
  EXPECT_INVALID(ops::full_like(boolean({2}), 3), "[full_like]", "3");
}

TEST(BadInput, FromData) {
  const TensorData floats(std::vector<float>{1, 2}, Shape{2});
  EXPECT_INVALID(ops::from_data(floats, with(DType::Bool), TensorKind::Float), "[from_data]",
                 "bool");
  EXPECT_INVALID(
      ops::from_data(TensorData(std::vector<float>{1}, Shape{}), device(), TensorKind::Float),
      "[from_data]", "rank 0");
}

TEST(BadInput, Random) {
  EXPECT_INVALID(ops::random({2}, Distribution::Default, device(), TensorKind::Bool), "[random]",
                 "Bernoulli");
  EXPECT_INVALID(ops::random({2}, Distribution::uniform(2, 1), device(), TensorKind::Float),
                 "[random]", "low 2", "high 1");
  EXPECT_INVALID(ops::random({2}, Distribution::normal(0, -1), device(), TensorKind::Float),
                 "[random]", "-1");
  EXPECT_INVALID(ops::random({2}, Distribution::bernoulli(1.5), device(), TensorKind::Float),
                 "[random]", "1.5");
  EXPECT_INVALID(ops::random({-1}, Distribution::Default, device(), TensorKind::Float), "[random]",
                 "-1");
}

TEST(BadInput, ArangeAndEye) {
  EXPECT_INVALID(ops::arange(0, 5, 0, device()), "[arange]", "step 0");
  EXPECT_INVALID(ops::arange(kMin, kMax, 1, device()), "[arange]", "more elements than int64");
  EXPECT_INVALID(ops::arange(0, 300, 1, with(DType::I8)), "[arange]", "299", "i8");
  EXPECT_INVALID(ops::arange(-1, 3, 1, with(DType::U8)), "[arange]", "-1", "u8");
  EXPECT_INVALID(ops::arange(0, 3, 1, with(DType::F32)), "[arange]", "f32");
  EXPECT_INVALID(ops::eye(-1, device(), TensorKind::Float), "[eye]", "-1");
  EXPECT_INVALID(ops::eye(2, with(DType::I64), TensorKind::Bool), "[eye]", "i64");
}

TEST(BadInput, UnaryKinds) {
  const TensorHandle ints = i64({1, 2}, Shape{2});
  EXPECT_INVALID(ops::exp(ints), "[exp]", "Float", "i64");
  EXPECT_INVALID(ops::log(ints), "[log]", "i64");
  EXPECT_INVALID(ops::round(ints), "[round]", "i64");
  EXPECT_INVALID(ops::is_nan(ints), "[is_nan]", "i64");
  EXPECT_INVALID(ops::bool_not(ints), "[bool_not]", "Bool", "i64");
  EXPECT_INVALID(ops::neg(boolean({2})), "[neg]", "bool");
  EXPECT_INVALID(ops::abs(boolean({2})), "[abs]", "bool");
  EXPECT_INVALID(ops::neg(handle({1}, Shape{1}, DType::U8)), "[neg]", "u8");
}

TEST(BadInput, BinaryKindsAndShapes) {
  EXPECT_INVALID(ops::add(f32({2}), i64({1, 2}, Shape{2})), "[add]", "f32", "i64");
  EXPECT_INVALID(ops::sub(boolean({2}), boolean({2})), "[sub]", "bool");
  EXPECT_INVALID(ops::bool_and(f32({2}), f32({2})), "[bool_and]", "f32");
  EXPECT_INVALID(ops::powf(i64({1}, Shape{1}), i64({1}, Shape{1})), "[powf]", "i64");
  EXPECT_INVALID(ops::mul(f32({2, 3}), f32({4})), "[mul]", "[2, 3]", "[4]");
  EXPECT_INVALID(ops::maximum(f32({2}), boolean({2})), "[maximum]", "bool");
}

TEST(BadInput, IntegerDivisionByZero) {
  EXPECT_INVALID(ops::div(i64({1}, Shape{1}), i64({0}, Shape{1})), "[div]", "zero");
  EXPECT_INVALID(ops::remainder(i64({1}, Shape{1}), i64({0}, Shape{1})), "[remainder]", "zero");
  EXPECT_INVALID(ops::div_scalar(i64({1}, Shape{1}), 0), "[div_scalar]", "zero");
  // 3 / x divides by the tensor's 0: the backend finds it and names rdiv_scalar.
  EXPECT_INVALID(ops::rdiv_scalar(i64({0}, Shape{1}), 3), "[rdiv_scalar]", "zero");
}

TEST(BadInput, Scalars) {
  const TensorHandle ints = i64({1}, Shape{1});
  EXPECT_INVALID(ops::add_scalar(ints, 2.5), "[add_scalar]", "float scalar 2.5", "Int");
  EXPECT_INVALID(ops::mul_scalar(handle({1}, Shape{1}, DType::I8), 300), "[mul_scalar]", "300",
                 "i8");
  EXPECT_INVALID(ops::sub_scalar(ints, std::numeric_limits<double>::infinity()), "[sub_scalar]",
                 "inf");
  EXPECT_INVALID(ops::add_scalar(boolean({1}), 1), "[add_scalar]", "bool");
  EXPECT_INVALID(ops::powi_scalar(ints, -1), "[powi_scalar]", "-1");
  EXPECT_INVALID(ops::rsub_scalar(handle({1}, Shape{1}, DType::U8), -1), "[rsub_scalar]", "-1",
                 "u8");
  EXPECT_INVALID(ops::mask_fill(ints, boolean({1}), 0.5), "[mask_fill]", "0.5");
  EXPECT_INVALID(ops::mask_fill(handle({1}, Shape{1}, DType::I8), boolean({1}), 128), "[mask_fill]",
                 "128", "i8");
  EXPECT_INVALID(ops::powf_scalar(ints, 2.0), "[powf_scalar]", "i64");
  EXPECT_INVALID(ops::clamp(f32({1}), 3, 1), "[clamp]", "min 3", "max 1");
  EXPECT_INVALID(ops::clamp(ints, 0.5, 2), "[clamp]", "0.5");
  EXPECT_INVALID(ops::clamp_min(boolean({1}), 0), "[clamp_min]", "bool");
}

TEST(BadInput, Comparisons) {
  EXPECT_INVALID(ops::equal(f32({2}), i64({1, 2}, Shape{2})), "[equal]", "f32", "i64");
  EXPECT_INVALID(ops::greater(f32({2}), f32({3})), "[greater]", "[2]", "[3]");
  EXPECT_INVALID(ops::equal_elem(TensorHandle(), 2), "[equal_elem]", "undefined");
}

TEST(BadInput, Masking) {
  EXPECT_INVALID(ops::mask_where(f32({2}), f32({2}), f32({2})), "[mask_where]", "Bool", "f32");
  EXPECT_INVALID(ops::mask_where(f32({2}), boolean({3}), f32({2})), "[mask_where]", "[3]");
  EXPECT_INVALID(ops::mask_where(f32({1}), boolean({1}), f32({4})), "[mask_where]", "[4]");
  EXPECT_INVALID(ops::mask_where(f32({2}), boolean({2}), i64({1, 2}, Shape{2})), "[mask_where]",
                 "i64");
  EXPECT_INVALID(ops::mask_fill(f32({2}), i64({1, 0}, Shape{2}), 0), "[mask_fill]", "i64");
  EXPECT_INVALID(ops::mask_fill(f32({2}), boolean({3}), 0), "[mask_fill]", "[3]");
  EXPECT_INVALID(ops::where(f32({2}), f32({2}), f32({2})), "[where]", "f32");
  EXPECT_INVALID(ops::where(boolean({2}), f32({2}), boolean({2})), "[where]", "bool");
}

TEST(BadInput, Reductions) {
  EXPECT_INVALID(ops::sum_dim(f32({2, 3}), 2), "[sum_dim]", "dim 2", "rank 2");
  EXPECT_INVALID(ops::mean_dim(f32({2, 3}), -3), "[mean_dim]", "-3");
  EXPECT_INVALID(ops::sum(boolean({2})), "[sum]", "bool");
  EXPECT_INVALID(ops::prod_dim(boolean({2}), 0), "[prod_dim]", "bool");
  EXPECT_INVALID(ops::var(i64({1, 2}, Shape{2}), 0), "[var]", "i64");
  EXPECT_INVALID(ops::var(f32({2}), 0, -1), "[var]", "-1");
  EXPECT_INVALID(ops::argmax(f32({2}), 5), "[argmax]", "5");
  EXPECT_INVALID(ops::argmin(boolean({2}), 0), "[argmin]", "bool");
  EXPECT_INVALID(ops::max_dim(f32({0, 2}), 0), "[max_dim]", "empty");
  EXPECT_INVALID(ops::any_dim(f32({2}), 1), "[any_dim]", "1");
}

TEST(BadInput, Matmul) {
  EXPECT_INVALID(ops::matmul(f32({2, 3}), f32({4, 5})), "[matmul]", "[2, 3]", "[4, 5]");
  EXPECT_INVALID(ops::matmul(f32({3}), f32({3})), "[matmul]", "[3]");
  EXPECT_INVALID(ops::matmul(f32({2, 2}), f32({2, 2, 2})), "[matmul]", "[2, 2, 2]");
  EXPECT_INVALID(ops::matmul(boolean({2, 2}), boolean({2, 2})), "[matmul]", "bool");
  EXPECT_INVALID(ops::matmul(f32({2, 2}), i64({1, 2, 3, 4}, Shape{2, 2})), "[matmul]", "i64");
}

TEST(BadInput, Reshape) {
  EXPECT_INVALID(ops::reshape(f32({2, 3}), {4, 2}), "[reshape]", "[4, 2]");
  EXPECT_INVALID(ops::reshape(f32({2, 3}), {-1, -1}), "[reshape]", "more than one -1");
  EXPECT_INVALID(ops::reshape(f32({2, 3}), {4, -1}), "[reshape]", "[4, -1]", "[2, 3]");
  EXPECT_INVALID(ops::reshape(f32({2, 3}), {0, -1}), "[reshape]", "[0, -1]");
  EXPECT_INVALID(ops::reshape(f32({2, 3}), {-2, -3}), "[reshape]", "-2");
  EXPECT_INVALID(ops::reshape(f32({2, 3}), {}), "[reshape]", "rank 0");
  EXPECT_INVALID(ops::reshape(f32({2, 3}), {kMax, 4}), "[reshape]", "too many");
}

TEST(BadInput, PermuteTransposeFlip) {
  EXPECT_INVALID(ops::permute(f32({2, 3}), {0, 0}), "[permute]", "0");
  EXPECT_INVALID(ops::permute(f32({2, 3}), {0}), "[permute]");
  EXPECT_INVALID(ops::permute(f32({2, 3}), {0, 5}), "[permute]", "5");
  EXPECT_INVALID(ops::transpose(f32({3})), "[transpose]", "[3]");
  EXPECT_INVALID(ops::swap_dims(f32({2, 3}), 0, 2), "[swap_dims]", "dim 2");
  EXPECT_INVALID(ops::flip(f32({2, 3}), {3}), "[flip]", "3");
  EXPECT_INVALID(ops::flip(f32({2, 3}), {1, -1}), "[flip]", "1");
}

TEST(BadInput, Expand) {
  EXPECT_INVALID(ops::expand(f32({2, 3}), {4, 3}), "[expand]", "[4, 3]");
  EXPECT_INVALID(ops::expand(f32({2, 3}), {3}), "[expand]", "[3]");
  EXPECT_INVALID(ops::expand(f32({3}), {-1, 3}), "[expand]", "-1");
  EXPECT_INVALID(ops::expand(f32({1}), {2, -5}), "[expand]", "-5");
}

TEST(BadInput, Slices) {
  const TensorHandle x = f32({2, 3});
  EXPECT_INVALID(ops::slice(x, {Slice(0, 2, 0)}), "[slice]", "step 0");
  EXPECT_INVALID(ops::slice(x, {Slice::all(), Slice::all(), Slice::all()}), "[slice]", "3 slices",
                 "rank 2");
  EXPECT_INVALID(ops::slice_assign(x, {Slice(0, 1)}, f32({2})), "[slice_assign]", "[2]", "[1, 3]");
  EXPECT_INVALID(ops::slice_assign(x, {Slice(0, 1)}, i64({1, 2, 3}, Shape{1, 3})), "[slice_assign]",
                 "i64");
  EXPECT_INVALID(ops::slice_assign(x, {Slice(0, 1, 0)}, f32({1, 3})), "[slice_assign]", "step 0");
  EXPECT_INVALID(ops::narrow(x, 1, 5, 1), "[narrow]", "start 5");
  EXPECT_INVALID(ops::narrow(x, 1, 1, 3), "[narrow]", "length 3", "size 3");
  EXPECT_INVALID(ops::narrow(x, 1, 1, kMax), "[narrow]", "exceeds");
  EXPECT_INVALID(ops::narrow(x, 0, 0, -1), "[narrow]", "-1");
  EXPECT_INVALID(ops::narrow(x, 2, 0, 1), "[narrow]", "dim 2");
}

TEST(BadInput, SqueezeUnsqueezeRepeat) {
  EXPECT_INVALID(ops::squeeze(f32({2, 3}), 1), "[squeeze]", "size 3");
  EXPECT_INVALID(ops::squeeze(f32({1, 3}), 2), "[squeeze]", "dim 2");
  EXPECT_INVALID(ops::squeeze(f32({1}), 0), "[squeeze]", "[1]");
  EXPECT_INVALID(ops::unsqueeze_dim(f32({2, 3}), 4), "[unsqueeze_dim]", "4");
  EXPECT_INVALID(ops::unsqueeze_dim(f32({2, 3}), -4), "[unsqueeze_dim]", "-4");
  EXPECT_INVALID(ops::unsqueeze(f32({2, 3}), 1), "[unsqueeze]", "[2, 3]", "1");
  EXPECT_INVALID(ops::repeat_dim(f32({2}), 0, -1), "[repeat_dim]", "-1");
  EXPECT_INVALID(ops::repeat_dim(f32({2}), 1, 2), "[repeat_dim]", "dim 1");
  EXPECT_INVALID(ops::repeat_dim(f32({2}), 0, kMax), "[repeat_dim]", "overflows");
}

TEST(BadInput, CatStackSplitChunk) {
  EXPECT_INVALID(ops::cat({}, 0), "[cat]", "at least one");
  EXPECT_INVALID(ops::cat({f32({2, 3}), f32({2, 4})}, 0), "[cat]", "[2, 4]");
  EXPECT_INVALID(ops::cat({f32({2}), i64({1}, Shape{1})}, 0), "[cat]", "i64");
  EXPECT_INVALID(ops::cat({f32({2}), f32({2, 1})}, 0), "[cat]", "[2, 1]");
  EXPECT_INVALID(ops::cat({f32({2})}, 1), "[cat]", "dim 1");
  EXPECT_INVALID(ops::stack({}, 0), "[stack]", "at least one");
  EXPECT_INVALID(ops::stack({f32({2}), f32({3})}, 0), "[stack]", "[3]", "[2]");
  EXPECT_INVALID(ops::stack({f32({2})}, 2), "[stack]", "2");
  EXPECT_INVALID(ops::split(f32({4}), 0, 0), "[split]", "0");
  EXPECT_INVALID(ops::split(f32({4}), 2, 1), "[split]", "dim 1");
  EXPECT_INVALID(ops::chunk(f32({4}), 0, 0), "[chunk]", "0");
  EXPECT_INVALID(ops::chunk(f32({4}), 2, -2), "[chunk]", "-2");
}

TEST(BadInput, Indexing) {
  const TensorHandle x = f32({3, 2});
  EXPECT_INVALID(ops::select(x, 0, f32({1})), "[select]", "Int", "f32");
  EXPECT_INVALID(ops::select(x, 2, i64({0}, Shape{1})), "[select]", "dim 2");
  EXPECT_INVALID(ops::select(x, 0, i64({5}, Shape{1})), "[select]", "5");
  EXPECT_INVALID(ops::select(x, 0, i64({-1}, Shape{1})), "[select]", "-1");
  EXPECT_INVALID(ops::select(x, 0, i64({0, 1}, Shape{1, 2})), "[select]", "[1, 2]");
  EXPECT_INVALID(ops::select_assign(x, 0, i64({0}, Shape{1}), i64({1, 2}, Shape{1, 2})),
                 "[select_assign]", "i64");
  EXPECT_INVALID(ops::select_assign(x, 0, i64({0}, Shape{1}), f32({2, 2})), "[select_assign]",
                 "[2, 2]");
  EXPECT_INVALID(ops::select_assign(x, 0, i64({3}, Shape{1}), f32({1, 2})), "[select_assign]", "3");
  EXPECT_INVALID(ops::gather(x, 1, i64({0, 7}, Shape{1, 2})), "[gather]", "7");
  EXPECT_INVALID(ops::gather(x, 1, i64({0}, Shape{1})), "[gather]", "[1]");
  EXPECT_INVALID(ops::gather(x, -3, i64({0}, Shape{1, 1})), "[gather]", "-3");
  EXPECT_INVALID(ops::scatter(x, 1, i64({0, 1}, Shape{1, 2}), f32({2, 2})), "[scatter]", "[2, 2]");
  EXPECT_INVALID(ops::scatter(x, 1, i64({-2, 1}, Shape{1, 2}), f32({1, 2})), "[scatter]", "-2");
  EXPECT_INVALID(ops::scatter(x, 0, f32({1, 2}), f32({1, 2})), "[scatter]", "f32");
}

TEST(BadInput, SortAndCumulative) {
  EXPECT_INVALID(ops::sort(boolean({2}), 0), "[sort]", "bool");
  EXPECT_INVALID(ops::sort(f32({2}), 1), "[sort]", "dim 1");
  EXPECT_INVALID(ops::argsort(f32({2}), -2), "[argsort]", "-2");
  EXPECT_INVALID(ops::sort_with_indices(boolean({2}), 0), "[sort_with_indices]", "bool");
  EXPECT_INVALID(ops::topk(f32({3}), 5, 0), "[topk]", "k 5", "size 3");
  EXPECT_INVALID(ops::topk(f32({3}), -1, 0), "[topk]", "k -1");
  EXPECT_INVALID(ops::topk_with_indices(f32({3}), 1, 1), "[topk]", "dim 1");
  EXPECT_INVALID(ops::cumsum(f32({2}), 3), "[cumsum]", "dim 3");
  EXPECT_INVALID(ops::cumprod(boolean({2}), 0), "[cumprod]", "bool");
  EXPECT_INVALID(ops::cummax(f32({2}), -2), "[cummax]", "-2");
  EXPECT_INVALID(ops::cummin(boolean({2}), 0), "[cummin]", "bool");
}

TEST(BadInput, OneHot) {
  EXPECT_INVALID(ops::one_hot(f32({2}), 3, TensorKind::Float), "[one_hot]", "Int", "f32");
  EXPECT_INVALID(ops::one_hot(i64({0, 3}, Shape{2}), 3, TensorKind::Float), "[one_hot]",
                 "class index 3", "[0, 3)");
  EXPECT_INVALID(ops::one_hot(i64({-1}, Shape{1}), 3, TensorKind::Float), "[one_hot]", "-1");
  EXPECT_INVALID(ops::one_hot(handle({200}, Shape{1}, DType::U8), 3, TensorKind::Int), "[one_hot]",
                 "200");
  EXPECT_INVALID(ops::one_hot(i64({0}, Shape{1}), 0, TensorKind::Float), "[one_hot]",
                 "num_classes 0");
}

TEST(BadInput, UndefinedTensors) {
  const TensorHandle undefined;
  EXPECT_INVALID(ops::exp(undefined), "[exp]", "undefined");
  EXPECT_INVALID(ops::add(f32({1}), undefined), "[add]", "undefined");
  EXPECT_INVALID(ops::reshape(undefined, {1}), "[reshape]", "undefined");
  EXPECT_INVALID(ops::cat({f32({1}), undefined}, 0), "[cat]", "undefined");
  EXPECT_INVALID(ops::into_data(undefined), "[into_data]", "undefined");
  EXPECT_INVALID(ops::to_device(undefined, device()), "[to_device]", "undefined");
  EXPECT_INVALID(ops::with_autodiff(undefined, true), "[with_autodiff]", "undefined");
  EXPECT_INVALID(ops::full_like(undefined, 0), "[full_like]", "undefined");
  EXPECT_INVALID(undefined.shape(), "[Tensor]", "undefined");
  EXPECT_INVALID(Tensor<1>(undefined), "[Tensor]", "undefined");
}

TEST(BadInput, TypedWrappers) {
  EXPECT_INVALID(Tensor<3>(f32({2, 3})), "[Tensor]", "expected rank 3", "[2, 3]");
  EXPECT_INVALID((Tensor<1, Int>(f32({2}))), "[Tensor]", "expected an Int tensor", "f32");
  EXPECT_INVALID((Tensor<1>(i64({1}, Shape{1}))), "[Tensor]", "Float", "i64");
  EXPECT_INVALID(Tensor<1>::zeros({2}, device()).cast(DType::I64), "[cast]", "i64", "Float");
  EXPECT_INVALID(Tensor<1>::zeros({2}, device()).into_scalar<float>(), "[into_scalar]", "[2]");
  EXPECT_INVALID(Tensor<2>::from_data(TensorData(std::vector<float>{1}, Shape{1}), device()),
                 "[Tensor]", "rank 2", "[1]");
}

}  // namespace
}  // namespace ember::test
