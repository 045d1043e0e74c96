// The backward rule of each ir op struct, one overload per struct, defined in the file of its
// family. backward_rule (registry.cpp) visits ir::Op and calls the matching overload. nullptr:
// the op is not differentiable.
#pragma once

#include "autodiff/rule.h"
#include "ir/ops.h"

namespace ember::autodiff::rules {

// unary.cpp
const BackwardRule* rule_for(const ir::Unary& op);
// binary.cpp
const BackwardRule* rule_for(const ir::Binary& op);
// binary_scalar.cpp
const BackwardRule* rule_for(const ir::BinaryScalar& op);
// select_value.cpp: the ops that pick between values (masks) or convert them
const BackwardRule* rule_for(const ir::Where& op);
const BackwardRule* rule_for(const ir::MaskFill& op);
const BackwardRule* rule_for(const ir::Cast& op);
// reduce.cpp
const BackwardRule* rule_for(const ir::Reduce& op);
// matmul.cpp
const BackwardRule* rule_for(const ir::Matmul& op);
// layout.cpp
const BackwardRule* rule_for(const ir::Reshape& op);
const BackwardRule* rule_for(const ir::Permute& op);
const BackwardRule* rule_for(const ir::Flip& op);
const BackwardRule* rule_for(const ir::Expand& op);
const BackwardRule* rule_for(const ir::Slice& op);
const BackwardRule* rule_for(const ir::SliceAssign& op);
const BackwardRule* rule_for(const ir::Cat& op);
// indexing.cpp
const BackwardRule* rule_for(const ir::Select& op);
const BackwardRule* rule_for(const ir::SelectAssign& op);
const BackwardRule* rule_for(const ir::Gather& op);
const BackwardRule* rule_for(const ir::Scatter& op);
// sort.cpp
const BackwardRule* rule_for(const ir::Sort& op);
// cumulative.cpp
const BackwardRule* rule_for(const ir::Cumulative& op);
// conv.cpp (ConvWeightGrad, a gradient op, has none: first order only)
const BackwardRule* rule_for(const ir::Conv& op);
const BackwardRule* rule_for(const ir::ConvWeightGrad& op);
// pool.cpp (the *Grad ops have none)
const BackwardRule* rule_for(const ir::Pool& op);
const BackwardRule* rule_for(const ir::AdaptivePool& op);
const BackwardRule* rule_for(const ir::AvgPoolGrad& op);
const BackwardRule* rule_for(const ir::AdaptiveAvgPoolGrad& op);
// interpolate.cpp (InterpolateGrad has none)
const BackwardRule* rule_for(const ir::Interpolate& op);
const BackwardRule* rule_for(const ir::InterpolateGrad& op);
// attention.cpp (AttentionGrad has none)
const BackwardRule* rule_for(const ir::Attention& op);
const BackwardRule* rule_for(const ir::AttentionGrad& op);
// row_ops.cpp (the gradient ops have none)
const BackwardRule* rule_for(const ir::LayerNorm& op);
const BackwardRule* rule_for(const ir::LayerNormGrad& op);
const BackwardRule* rule_for(const ir::CrossEntropy& op);
const BackwardRule* rule_for(const ir::CrossEntropyGrad& op);
// registry.cpp: activations (forwarding to activation.h) and the ops without a gradient
const BackwardRule* rule_for(const ir::Activation& op);
const BackwardRule* rule_for(const ir::Softmax& op);
const BackwardRule* rule_for(const ir::SoftmaxGrad& op);
const BackwardRule* rule_for(const ir::Compare& op);
const BackwardRule* rule_for(const ir::CompareScalar& op);
const BackwardRule* rule_for(const ir::Full& op);
const BackwardRule* rule_for(const ir::Arange& op);
const BackwardRule* rule_for(const ir::Random& op);

}  // namespace ember::autodiff::rules
