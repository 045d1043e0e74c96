// Indexing ops: select/select_assign along a dim by a rank-1 index, gather/scatter by an index
// of the input's rank. Indices are I64, in range, with duplicates (the assigns add them up;
// on Bool, adding is a logical or; the "/assign" cases write them, the last in order winning).
#include "support/op_cases.h"
#include "tensor/dispatch.h"

namespace ember::test {
namespace {

/// Draws indices into a dim of size 3.
const ValueSpec kIndexInDim1{0.0, 2.0};

/// fn(x, dim, indices) → one output.
using IndexFn = TensorHandle (*)(const TensorHandle&, int64_t, const TensorHandle&);
/// fn(x, dim, indices, values) → one output.
using IndexAssignFn = TensorHandle (*)(const TensorHandle&, int64_t, const TensorHandle&,
                                       const TensorHandle&);

OpCase index_case(std::string name, IndexFn fn, int64_t dim, InputSpec index) {
  OpRun run = [fn](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{fn(in.at(0), args.integer("dim"), in.at(1))};
  };
  return make_case(std::move(name), DTypes::All, {drawn(kShape), std::move(index)}, std::move(run),
                   fixed_args({{"dim", dim}}));
}

OpCase index_assign_case(std::string name, IndexAssignFn fn, InputSpec index, Shape values) {
  OpRun run = [fn](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{fn(in.at(0), args.integer("dim"), in.at(1), in.at(2))};
  };
  return make_case(std::move(name), DTypes::All,
                   {drawn(kShape), std::move(index), drawn(std::move(values))}, std::move(run),
                   fixed_args({{"dim", int64_t{1}}}));
}

/// The assigning form of scatter or select_assign (ir::IndexUpdate::Assign, an ir op without a
/// function of tensor_ops.h: the op runs as it is) on x, indices and values. Of several values
/// naming one element, the last in row-major order wins. Not mirrored in generate.py (no golden
/// values).
OpCase assign_case(std::string name, ir::Op op, Shape x, InputSpec index, Shape values) {
  OpRun run = [op = std::move(op)](const ops::Handles& in, const OpArgs&,
                                   const OpTarget&) -> ops::Handles {
    return {tensor::run_one(op, {in.at(0), in.at(1), in.at(2)})};
  };
  OpCase c =
      make_case(std::move(name), DTypes::All,
                {drawn(std::move(x)), std::move(index), drawn(std::move(values))}, std::move(run));
  c.has_golden = false;
  return c;
}

}  // namespace

std::vector<OpCase> index_cases() {
  const ir::Op select_assign = ir::SelectAssign{1, ir::IndexUpdate::Assign};
  const ir::Op scatter_assign = ir::Scatter{1, ir::IndexUpdate::Assign};
  return {
      index_case("select", ops::select, 2, indices({4}, {3, 0, 3, 1})),
      index_assign_case("select_assign", ops::select_assign, indices({3}, {1, 0, 1}), {2, 3, 4}),
      index_case("gather", ops::gather, 1, drawn_as(DType::I64, {2, 2, 4}, kIndexInDim1)),
      index_assign_case("scatter", ops::scatter, drawn_as(DType::I64, {2, 2, 4}, kIndexInDim1),
                        {2, 2, 4}),
      assign_case("select_assign/assign", select_assign, kShape, indices({5}, {1, 0, 1, 2, 1}),
                  {2, 5, 4}),
      // Each position along dim 1 written about 70 times.
      assign_case("select_assign/assign_many", select_assign, {4, 3, 5},
                  drawn_as(DType::I64, {200}, kIndexInDim1), {4, 200, 5}),
      assign_case("scatter/assign", scatter_assign, kShape,
                  drawn_as(DType::I64, {2, 2, 4}, kIndexInDim1), {2, 2, 4}),
      // Each element written about 20 times.
      assign_case("scatter/assign_many", scatter_assign, {4, 3, 5},
                  drawn_as(DType::I64, {4, 60, 5}, kIndexInDim1), {4, 60, 5}),
  };
}

}  // namespace ember::test
