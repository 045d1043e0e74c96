// Layout ops: every dtype, values moved but never computed.
#include "support/op_cases.h"

namespace ember::test {
namespace {

using Dims = std::vector<int64_t>;

/// A case on one drawn input of shape, with fixed arguments.
OpCase layout(std::string name, Shape shape, OpArgs args, OpRun run) {
  return make_case(std::move(name), DTypes::All, {drawn(std::move(shape))}, std::move(run),
                   fixed_args(std::move(args)));
}

/// fn(x, args.ints(key)) for the ops taking a dim list.
using DimsFn = TensorHandle (*)(const TensorHandle&, const ops::Dims&);
OpCase with_dims(std::string name, DimsFn fn, std::string key, Dims dims, Shape shape = kShape) {
  OpRun run = [fn, key](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{fn(in.at(0), args.ints(key))};
  };
  return layout(std::move(name), std::move(shape), {{key, std::move(dims)}}, std::move(run));
}

OpCase swap_dims_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::swap_dims(in.at(0), args.integer("dim0"), args.integer("dim1"))};
  };
  return layout("swap_dims", kShape, {{"dim0", int64_t{0}}, {"dim1", int64_t{2}}}, std::move(run));
}

OpCase slice_case(std::string name, std::vector<Slice> slices) {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::slice(in.at(0), args.slices("slices"))};
  };
  return layout(std::move(name), kShape, {{"slices", std::move(slices)}}, std::move(run));
}

/// x[slices] = values, values of the slice's shape.
OpCase slice_assign_case(std::string name, std::vector<Slice> slices, Shape values_shape) {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::slice_assign(in.at(0), args.slices("slices"), in.at(1))};
  };
  return make_case(std::move(name), DTypes::All, {drawn(kShape), drawn(std::move(values_shape))},
                   std::move(run), fixed_args({{"slices", std::move(slices)}}));
}

OpCase narrow_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{
        ops::narrow(in.at(0), args.integer("dim"), args.integer("start"), args.integer("length"))};
  };
  return layout("narrow", kShape,
                {{"dim", int64_t{2}}, {"start", int64_t{1}}, {"length", int64_t{2}}},
                std::move(run));
}

OpCase with_dim(std::string name, DimFn fn, int64_t dim, Shape shape = kShape) {
  return layout(std::move(name), std::move(shape), {{"dim", dim}}, run_dim(fn));
}

OpCase unsqueeze_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::unsqueeze(in.at(0), static_cast<std::size_t>(args.integer("rank")))};
  };
  return layout("unsqueeze", kShape, {{"rank", int64_t{5}}}, std::move(run));
}

OpCase repeat_dim_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::repeat_dim(in.at(0), args.integer("dim"), args.integer("times"))};
  };
  return layout("repeat_dim", kShape, {{"dim", int64_t{1}}, {"times", int64_t{2}}}, std::move(run));
}

/// cat or stack of every input along args.dim.
using JoinFn = TensorHandle (*)(const ops::Handles&, int64_t);
OpCase join_case(std::string name, JoinFn fn, std::vector<InputSpec> inputs) {
  OpRun run = [fn](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{fn(in, args.integer("dim"))};
  };
  return make_case(std::move(name), DTypes::All, std::move(inputs), std::move(run),
                   fixed_args({{"dim", int64_t{1}}}));
}

/// split (pieces of `size`) or chunk (`size` pieces at most) along dim 1 / dim 0.
using PiecesFn = ops::Handles (*)(const TensorHandle&, int64_t, int64_t);
OpCase pieces_case(std::string name, PiecesFn fn, std::string key, int64_t size, int64_t dim,
                   Shape shape) {
  OpRun run = [fn, key](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return fn(in.at(0), args.integer(key), args.integer("dim"));
  };
  return layout(std::move(name), std::move(shape), {{key, size}, {"dim", dim}}, std::move(run));
}

}  // namespace

std::vector<OpCase> layout_cases() {
  const std::optional<int64_t> none;
  return {
      with_dims("reshape", ops::reshape, "dims", {4, -1}),
      with_dims("permute", ops::permute, "axes", {2, 0, 1}),
      layout("transpose", kShape, {}, run_unary(ops::transpose)),
      swap_dims_case(),
      with_dims("flip", ops::flip, "axes", {0, 2}),
      with_dims("expand", ops::expand, "dims", {2, -1, 4}, {3, 1}),
      // x[1:, 0:3:2, -3:-1]
      slice_case("slice", {Slice(1, none), Slice(0, 3, 2), Slice(-3, -1)}),
      // x[:, ::-1, 3:0:-2]
      slice_case("slice/negative_step", {Slice::all(), Slice(none, none, -1), Slice(3, 0, -2)}),
      // x[0:2, 1:3] = values
      slice_assign_case("slice_assign", {Slice(0, 2), Slice(1, 3)}, {2, 2, 4}),
      // x[::-1, 2::-2] = values
      slice_assign_case("slice_assign/negative_step", {Slice(none, none, -1), Slice(2, none, -2)},
                        {2, 2, 4}),
      narrow_case(),
      with_dim("squeeze", ops::squeeze, 1, {2, 1, 4}),
      layout("squeeze_all", {1, 3, 1, 4}, {}, run_unary(ops::squeeze_all)),
      with_dim("unsqueeze_dim", ops::unsqueeze_dim, 1),
      with_dim("unsqueeze_dim/last", ops::unsqueeze_dim, -1),
      unsqueeze_case(),
      repeat_dim_case(),
      join_case("cat", ops::cat, {drawn(kShape), drawn({2, 2, 4})}),
      join_case("stack", ops::stack, {drawn({3, 4}), drawn({3, 4}), drawn({3, 4})}),
      // 5 along dim 1 in pieces of 2: sizes 2, 2, 1.
      pieces_case("split", ops::split, "split_size", 2, 1, {2, 5, 3}),
      // 6 in at most 4 chunks: torch.chunk makes 3 of size 2 (np.array_split would make 4).
      pieces_case("chunk", ops::chunk, "chunks", 4, 0, {6, 2}),
  };
}

}  // namespace ember::test
