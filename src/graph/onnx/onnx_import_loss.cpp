// Importers of ONNX's losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (its
// log-softmax, then the same loss), with class weights, ignore_index and the three reductions.
#include "ember/activation_functions.h"
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// -log_prob[n, target[n, ...], ...] * weight[target], 0 where the target is ignore_index,
/// reduced as reduction says (mean: divided by the weights' sum).
OnnxValue nll(const OnnxNode& node, const TensorHandle& log_prob, const TensorHandle& target,
              const std::optional<TensorHandle>& weight) {
  if (log_prob.rank() < 2 || target.rank() + 1 != log_prob.rank())
    node.fail("input ", log_prob.shape(), " and target ", target.shape(), " do not fit");
  const std::optional<int64_t> ignore = node.attr_int("ignore_index");
  TensorHandle index = ops::cast(target, DType::I64);
  TensorHandle valid = ops::full_like(ops::cast(index, DType::Bool), true);
  if (ignore) {
    valid = ops::not_equal_elem(index, *ignore);
    index = ops::mask_fill(index, ops::bool_not(valid), 0);
  }
  const TensorHandle picked =
      ops::squeeze(ops::gather(log_prob, 1, ops::unsqueeze_dim(index, 1)), 1);
  TensorHandle w = ops::cast(valid, log_prob.dtype());
  if (weight) {
    const TensorHandle flat = ops::reshape(index, {index.shape().num_elements()});
    w = ops::mul(w, ops::reshape(ops::select(*weight, 0, flat), index.shape().dims()));
  }
  const TensorHandle loss = ops::neg(ops::mul(picked, w));
  const std::string reduction = node.attr_string("reduction", "mean");
  if (reduction == "none") return {loss, false};
  if (reduction == "sum") return {ops::sum(loss), true};
  if (reduction != "mean") node.fail("reduction '", reduction, "' is not none, sum or mean");
  return {ops::div(ops::sum(loss), ops::sum(w)), true};
}

std::vector<OnnxValue> nll_loss(const OnnxNode& node) {
  const std::optional<TensorHandle> weight =
      node.has(2) ? std::optional(node.tensor(2)) : std::nullopt;
  return {nll(node, node.tensor(0), node.tensor(1), weight)};
}

std::vector<OnnxValue> softmax_cross_entropy(const OnnxNode& node) {
  const TensorHandle log_prob = ops::log_softmax(node.tensor(0), 1);
  const std::optional<TensorHandle> weight =
      node.has(2) ? std::optional(node.tensor(2)) : std::nullopt;
  return {nll(node, log_prob, node.tensor(1), weight), {log_prob, false}};
}

}  // namespace

void add_loss_importers(OnnxImporters& table) {
  table.insert({
      {"NegativeLogLikelihoodLoss", nll_loss},
      {"SoftmaxCrossEntropyLoss", softmax_cross_entropy},
  });
}

}  // namespace ember::detail
