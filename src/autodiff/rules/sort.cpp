// Backward rule of sort (compute-bound): sorted value i came from x at indices[i], so the
// gradient of the values is added back at those indices. topk is sort + slice, so its gradient
// follows the same path. The indices output has no gradient.
#include <variant>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

Handles sort_backward(const BackwardArgs& args) {
  const TensorHandle& sorted_from = args.outputs[1];
  return {ops::scatter(zeros_like_input(args, 0), std::get<ir::Sort>(args.op).dim, sorted_from,
                       output_grad(args))};
}

constexpr BackwardRule kSort = compute_rule<sort_backward>(Needs::Outputs);

}  // namespace

const BackwardRule* rule_for(const ir::Sort&) {
  return &kSort;
}

}  // namespace ember::autodiff::rules
