// One rule per op struct: checks the inputs (arity first, then dtypes, then shapes) and returns
// the outputs' metadata. ir::infer dispatches to these; op is the whole op, for messages.
#pragma once

#include "ir/rules.h"

namespace ember::ir::rules {

// elementwise_rules.cpp
Outputs infer_rule(const Unary& unary, const Op& op, Inputs inputs);
Outputs infer_rule(const Binary& binary, const Op& op, Inputs inputs);
Outputs infer_rule(const BinaryScalar& binary, const Op& op, Inputs inputs);
Outputs infer_rule(const Compare& compare, const Op& op, Inputs inputs);
Outputs infer_rule(const CompareScalar& compare, const Op& op, Inputs inputs);
Outputs infer_rule(const Cast& cast, const Op& op, Inputs inputs);
// where_rules.cpp
Outputs infer_rule(const Where& where, const Op& op, Inputs inputs);
Outputs infer_rule(const MaskFill& fill, const Op& op, Inputs inputs);
// reduce_rules.cpp
Outputs infer_rule(const Reduce& reduce, const Op& op, Inputs inputs);
// matmul_rules.cpp
Outputs infer_rule(const Matmul& matmul, const Op& op, Inputs inputs);
// layout_rules.cpp
Outputs infer_rule(const Reshape& reshape, const Op& op, Inputs inputs);
Outputs infer_rule(const Permute& permute, const Op& op, Inputs inputs);
Outputs infer_rule(const Flip& flip, const Op& op, Inputs inputs);
Outputs infer_rule(const Expand& expand, const Op& op, Inputs inputs);
Outputs infer_rule(const Cat& cat, const Op& op, Inputs inputs);
// slice_rules.cpp
Outputs infer_rule(const Slice& slice, const Op& op, Inputs inputs);
Outputs infer_rule(const SliceAssign& assign, const Op& op, Inputs inputs);
// indexing_rules.cpp
Outputs infer_rule(const Select& select, const Op& op, Inputs inputs);
Outputs infer_rule(const SelectAssign& assign, const Op& op, Inputs inputs);
Outputs infer_rule(const Gather& gather, const Op& op, Inputs inputs);
Outputs infer_rule(const Scatter& scatter, const Op& op, Inputs inputs);
// sort_rules.cpp
Outputs infer_rule(const Sort& sort, const Op& op, Inputs inputs);
Outputs infer_rule(const Cumulative& cumulative, const Op& op, Inputs inputs);
// creation_rules.cpp
Outputs infer_rule(const Full& full, const Op& op, Inputs inputs);
Outputs infer_rule(const Arange& arange, const Op& op, Inputs inputs);
Outputs infer_rule(const Random& random, const Op& op, Inputs inputs);
// activation_rules.cpp
Outputs infer_rule(const Activation& activation, const Op& op, Inputs inputs);
Outputs infer_rule(const Softmax& softmax, const Op& op, Inputs inputs);
Outputs infer_rule(const SoftmaxGrad& grad, const Op& op, Inputs inputs);
// conv_rules.cpp
Outputs infer_rule(const Conv& conv, const Op& op, Inputs inputs);
Outputs infer_rule(const ConvWeightGrad& grad, const Op& op, Inputs inputs);
// pool_rules.cpp
Outputs infer_rule(const Pool& pool, const Op& op, Inputs inputs);
Outputs infer_rule(const AdaptivePool& pool, const Op& op, Inputs inputs);
Outputs infer_rule(const AvgPoolGrad& grad, const Op& op, Inputs inputs);
Outputs infer_rule(const AdaptiveAvgPoolGrad& grad, const Op& op, Inputs inputs);
// interpolate_rules.cpp
Outputs infer_rule(const Interpolate& interpolate, const Op& op, Inputs inputs);
Outputs infer_rule(const InterpolateGrad& grad, const Op& op, Inputs inputs);
// attention_rules.cpp
Outputs infer_rule(const Attention& attention, const Op& op, Inputs inputs);
Outputs infer_rule(const AttentionGrad& grad, const Op& op, Inputs inputs);
// row_op_rules.cpp
Outputs infer_rule(const LayerNorm& norm, const Op& op, Inputs inputs);
Outputs infer_rule(const LayerNormGrad& grad, const Op& op, Inputs inputs);
Outputs infer_rule(const CrossEntropy& loss, const Op& op, Inputs inputs);
Outputs infer_rule(const CrossEntropyGrad& grad, const Op& op, Inputs inputs);

}  // namespace ember::ir::rules
