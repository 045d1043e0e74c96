// Composite cases: public ops lowered to several ir ops (clamp, topk, transpose, stack, negative
// step slices, repeat_dim, split) and small expressions (a tensor used twice, a dense layer, a
// softmax from primitives). Checked end to end only, through the tape.
#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

using ops::Handles;

TensorHandle clamp(const Handles& x) {
  return ops::clamp(x[0], -0.5, 0.8);
}
TensorHandle topk(const Handles& x) {
  return ops::topk(x[0], 2, 1);
}
TensorHandle x_times_x_plus_x(const Handles& x) {
  return ops::add(ops::mul(x[0], x[0]), x[0]);
}
/// tanh(x @ w^T + b), b broadcast over the rows.
TensorHandle dense_tanh(const Handles& x) {
  return ops::tanh(ops::add(ops::matmul(x[0], ops::transpose(x[1])), x[2]));
}
/// exp(x - max) / sum(exp(x - max)) along dim 1.
TensorHandle softmax_from_primitives(const Handles& x) {
  const TensorHandle e = ops::exp(ops::sub(x[0], ops::max_dim(x[0], 1)));
  return ops::div(e, ops::sum_dim(e, 1));
}
TensorHandle stack(const Handles& x) {
  return ops::stack({x[0], x[1]}, 1);
}
TensorHandle slice_backwards(const Handles& x) {
  return ops::slice(x[0], {Slice::all(), Slice(std::nullopt, std::nullopt, -2)});
}
TensorHandle repeat_dim(const Handles& x) {
  return ops::repeat_dim(x[0], 0, 2);
}
/// The two halves along dim 1, multiplied.
TensorHandle split_product(const Handles& x) {
  const Handles halves = ops::split(x[0], 2, 1);
  return ops::mul(halves[0], halves[1]);
}
TensorHandle mask_where(const Handles& x) {
  return ops::mask_where(x[0], ops::greater_elem(x[1], 0), x[1]);
}

}  // namespace

std::vector<GradCase> composite_grad_cases() {
  return {
      composite_case("composite/clamp", clamp, {distinct("c/clamp", {2, 3})}),
      composite_case("composite/topk", topk, {distinct("c/topk", {2, 4})}),
      composite_case("composite/x_times_x_plus_x", x_times_x_plus_x, {reals("c/xx", {2, 3})}),
      composite_case(
          "composite/dense_tanh", dense_tanh,
          {reals("c/dense/x", {2, 3}), reals("c/dense/w", {4, 3}), reals("c/dense/b", {4})}),
      composite_case("composite/softmax", softmax_from_primitives, {distinct("c/softmax", {2, 3})}),
      composite_case("composite/stack", stack,
                     {reals("c/stack/a", {2, 2}), reals("c/stack/b", {2, 2})}),
      composite_case("composite/slice_backwards", slice_backwards, {reals("c/slice", {2, 5})}),
      composite_case("composite/repeat_dim", repeat_dim, {reals("c/repeat", {2, 3})}),
      composite_case("composite/split_product", split_product, {reals("c/split", {2, 4})}),
      composite_case("composite/mask_where", mask_where,
                     {reals("c/mw/x", {2, 3}), distinct("c/mw/v", {2, 3})}),
  };
}

}  // namespace ember::test
