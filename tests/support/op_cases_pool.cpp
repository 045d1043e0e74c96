// Pooling through ops::max_pool_with_indices (values and indices compared), ops::avg_pool and
// the adaptive poolings, options written as OpArgs: one value per spatial dim, or one for all.
// Not yet mirrored in tests/golden/generate.py (has_golden false); tests/ndarray/pool_test.cpp
// checks the values by hand.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/pooling.h"
#include "support/op_cases.h"

namespace ember::test {
namespace {

/// No two values equal, so that every backend must pick the same maximum (and index); small
/// enough for i8 and exact in f16 and bf16 over the 60 elements of the largest input.
ValueSpec distinct_values() {
  ValueSpec values{-3.0, 0.0, 1.0};
  values.distinct = true;
  return values;
}

/// Values around 1 in magnitude, so that window sums stay within f16's precision.
const ValueSpec kPoolUnit{-1.0, 1.0};

/// The options of a sliding pooling; divisor_override 0 stands for none.
struct PoolOptions {
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride{};
  std::vector<int64_t> padding{0};
  std::vector<int64_t> dilation{1};
  bool ceil_mode = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;
};

OpArgs pool_args_of(const PoolOptions& o) {
  return {{"kernel_size", o.kernel_size},
          {"stride", o.stride},
          {"padding", o.padding},
          {"dilation", o.dilation},
          {"ceil_mode", o.ceil_mode},
          {"count_include_pad", o.count_include_pad},
          {"divisor_override", o.divisor_override}};
}

ops::Handles run_max_pool(const ops::Handles& in, const OpArgs& args, const OpTarget&) {
  auto [values, indices] =
      ops::max_pool_with_indices(in.at(0), {.kernel_size = args.ints("kernel_size"),
                                            .stride = args.ints("stride"),
                                            .padding = args.ints("padding"),
                                            .dilation = args.ints("dilation"),
                                            .ceil_mode = args.flag("ceil_mode")});
  return {std::move(values), std::move(indices)};
}

ops::Handles run_avg_pool(const ops::Handles& in, const OpArgs& args, const OpTarget&) {
  const int64_t divisor = args.integer("divisor_override");
  return {ops::avg_pool(in.at(0),
                        {.kernel_size = args.ints("kernel_size"),
                         .stride = args.ints("stride"),
                         .padding = args.ints("padding"),
                         .ceil_mode = args.flag("ceil_mode"),
                         .count_include_pad = args.flag("count_include_pad"),
                         .divisor_override = divisor > 0 ? std::optional(divisor) : std::nullopt})};
}

ops::Handles run_adaptive_avg_pool(const ops::Handles& in, const OpArgs& args, const OpTarget&) {
  return {ops::adaptive_avg_pool(in.at(0), args.ints("output_size"))};
}

ops::Handles run_adaptive_max_pool(const ops::Handles& in, const OpArgs& args, const OpTarget&) {
  auto [values, indices] = ops::adaptive_max_pool_with_indices(in.at(0), args.ints("output_size"));
  return {std::move(values), std::move(indices)};
}

OpCase pool_case(std::string name, DTypes dtypes, InputSpec x, OpRun run, OpArgs args) {
  OpCase c = make_case(std::move(name), dtypes, {std::move(x)}, std::move(run),
                       fixed_args(std::move(args)));
  c.has_golden = false;
  return c;
}

OpCase max_case(std::string name, Shape x, const PoolOptions& options) {
  return pool_case(std::move(name), DTypes::Numeric, drawn(std::move(x), distinct_values()),
                   run_max_pool, pool_args_of(options));
}

OpCase avg_case(std::string name, Shape x, const PoolOptions& options) {
  return pool_case(std::move(name), DTypes::Float, drawn(std::move(x), kPoolUnit), run_avg_pool,
                   pool_args_of(options));
}

OpCase adaptive_case(std::string name, bool max, Shape x, std::vector<int64_t> output_size) {
  OpArgs args{{"output_size", std::move(output_size)}};
  if (max) {
    return pool_case(std::move(name), DTypes::Numeric, drawn(std::move(x), distinct_values()),
                     run_adaptive_max_pool, std::move(args));
  }
  return pool_case(std::move(name), DTypes::Float, drawn(std::move(x), kPoolUnit),
                   run_adaptive_avg_pool, std::move(args));
}

using ir::PoolOp;

OpCase avg_grad_case(std::string name, const ir::Pool& pool, const Shape& x) {
  return gradient_case(std::move(name), ir::AvgPoolGrad{pool, x}, pool, x, kPoolUnit);
}

OpCase adaptive_avg_grad_case(std::string name, std::vector<int64_t> output_size, const Shape& x) {
  const ir::AdaptivePool pool{PoolOp::Avg, std::move(output_size)};
  return gradient_case(std::move(name), ir::AdaptiveAvgPoolGrad{pool, x}, pool, x, kPoolUnit);
}

}  // namespace

std::vector<OpCase> pool_cases() {
  return {
      max_case("max_pool1d", {2, 3, 9}, {.kernel_size = {3}, .stride = {2}}),
      // ceil_mode adds a fifth window, [7, 9], over the last input and the right padding.
      max_case("max_pool1d/ceil_mode", {2, 3, 8},
               {.kernel_size = {3}, .stride = {2}, .padding = {1}, .ceil_mode = true}),
      max_case("max_pool2d", {1, 2, 5, 5}, {.kernel_size = {2}}),
      max_case("max_pool2d/padding_dilation", {1, 2, 6, 5},
               {.kernel_size = {3, 2}, .stride = {2, 1}, .padding = {1}, .dilation = {2, 1}}),
      avg_case("avg_pool1d", {2, 3, 8}, {.kernel_size = {3}, .stride = {2}, .padding = {1}}),
      avg_case("avg_pool1d/exclude_pad_ceil_mode", {2, 3, 8},
               {.kernel_size = {3},
                .stride = {2},
                .padding = {1},
                .ceil_mode = true,
                .count_include_pad = false}),
      avg_case("avg_pool2d", {2, 3, 4, 6}, {.kernel_size = {2}}),
      avg_case("avg_pool2d/divisor_override", {1, 2, 5, 5},
               {.kernel_size = {3}, .stride = {2}, .padding = {1}, .divisor_override = 4}),
      adaptive_case("adaptive_avg_pool1d", false, {2, 3, 7}, {3}),
      adaptive_case("adaptive_avg_pool2d", false, {2, 3, 5, 7}, {2, 3}),
      adaptive_case("adaptive_max_pool2d", true, {1, 2, 5, 5}, {3, 2}),
      // The gradients: every input gathers the outputs whose windows hold it (overlapping
      // windows, padding left out of the divisor or counted, a divisor given, 1 to 3 dims).
      avg_grad_case("avg_pool1d_backward", {PoolOp::Avg, {3}, {2}, {1}, {1}}, {2, 3, 8}),
      avg_grad_case("avg_pool1d_backward/exclude_pad_ceil_mode",
                    {PoolOp::Avg, {3}, {2}, {1}, {1}, true, false}, {2, 3, 8}),
      avg_grad_case("avg_pool2d_backward/divisor_override",
                    {PoolOp::Avg, {2, 3}, {2, 2}, {1, 1}, {1, 1}, true, true, 5}, {1, 2, 5, 5}),
      avg_grad_case("avg_pool3d_backward",
                    {PoolOp::Avg, {2, 2, 2}, {1, 2, 1}, {0, 1, 1}, {1, 1, 1}}, {2, 2, 3, 4, 5}),
      adaptive_avg_grad_case("adaptive_avg_pool1d_backward", {3}, {2, 3, 7}),
      adaptive_avg_grad_case("adaptive_avg_pool2d_backward", {3, 4}, {2, 3, 5, 7}),
  };
}

}  // namespace ember::test
