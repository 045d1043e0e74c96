// Indexing ops: select/select_assign along a dim by a rank-1 index, gather/scatter by an index
// of the input's rank. Indices are I64, in range, with duplicates (the assigns add them up;
// on Bool, adding is a logical or).
#include "support/op_cases.h"

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

}  // namespace

std::vector<OpCase> index_cases() {
  return {
      index_case("select", ops::select, 2, indices({4}, {3, 0, 3, 1})),
      index_assign_case("select_assign", ops::select_assign, indices({3}, {1, 0, 1}), {2, 3, 4}),
      index_case("gather", ops::gather, 1, drawn_as(DType::I64, {2, 2, 4}, kIndexInDim1)),
      index_assign_case("scatter", ops::scatter, drawn_as(DType::I64, {2, 2, 4}, kIndexInDim1),
                        {2, 2, 4}),
  };
}

}  // namespace ember::test
