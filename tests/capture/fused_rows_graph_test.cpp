// Graphs holding the fused row ops (ir/fused_rows.h): the capture device records layer_norm,
// rms_norm, cross_entropy and softmax's gradient as the fused ops. Replayed on cpu, which runs
// them fused, a graph gives the eager values bit for bit; on ndarray, which does not, each op
// expands into its composite, checked against ndarray's reference kernels for the fused ops (run
// through tensor::FusedPathScope) and, forward, against the eager composites bit for bit. The text
// form and simplify keep them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "capture/capture_test_util.h"
#include "capture/row_ops_step.h"
#include "ember/ember.h"
#include "tensor/fused_path.h"

namespace ember::test {
namespace {

/// row_ops_step recorded on the capture device: inputs x, weight, bias and targets.
Graph captured_rows_step() {
  const Device capture = Device::capture();
  const auto input = [&](const std::string& name, const TensorData& data) {
    return Graph::input(name, data.shape(), data.dtype(), capture);
  };
  const std::vector<TensorHandle> inputs{input("x", kRowsX), input("weight", kRowsWeight),
                                         input("bias", kRowsBias), input("targets", kRowsTargets)};
  const auto tracked = [](const TensorHandle& x) {
    return ops::require_grad(ops::with_autodiff(x, true));
  };
  const RowLeaves leaves{tracked(inputs[0]), tracked(inputs[1]), tracked(inputs[2]), inputs[3]};
  return Graph::trace(inputs, row_ops_step(leaves), {"y", "loss", "dx", "dweight", "dbias"});
}

/// graph replayed on device with the kRows* values.
std::vector<TensorHandle> replay_rows(const Graph& graph, const Device& device) {
  const auto on = [&](const TensorData& data, TensorKind kind) {
    return ops::from_data(data, device, kind);
  };
  return graph.replay(device,
                      {on(kRowsX, TensorKind::Float), on(kRowsWeight, TensorKind::Float),
                       on(kRowsBias, TensorKind::Float), on(kRowsTargets, TensorKind::Int)});
}

void expect_bits_equal(const std::vector<TensorHandle>& got,
                       const std::vector<TensorHandle>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(bits_of(got[i]), bits_of(expected[i])) << "output " << i;
}

TEST(FusedRowGraphs, TheCaptureDeviceRecordsTheFusedOps) {
  const std::string text = captured_rows_step().to_text();
  for (const char* op :
       {"= layer_norm(", "= rms_norm(", "= cross_entropy(", "= layer_norm_backward(",
        "= rms_norm_backward(", "= cross_entropy_backward(", "= softmax_backward(",
        "= log_softmax_backward("})
    EXPECT_NE(text.find(op), std::string::npos) << op << " in\n" << text;
}

TEST(FusedRowGraphs, ReplayedOnCpuTheyEqualTheEagerStepBitForBit) {
  // cpu runs them fused, but softmax's gradient across rows (dim 0), which it runs as the
  // composite: so does the replay.
  const Device cpu = Device::cpu();
  expect_bits_equal(replay_rows(captured_rows_step(), cpu), row_ops_step(row_leaves(cpu)));
}

TEST(FusedRowGraphs, ReplayedOnNdarrayTheyExpandIntoTheirComposites) {
  const Device ndarray = Device::ndarray();
  const Graph graph = captured_rows_step();
  const std::vector<TensorHandle> composites = replay_rows(graph, ndarray);
  // The forward ops expand into the composites eager code runs on ndarray: y and the loss are
  // the eager ones bit for bit. The gradient ops' composites are their formulas, where the eager
  // step differentiates the forward composites op by op: within rounding.
  const std::vector<TensorHandle> eager = row_ops_step(row_leaves(ndarray));
  EXPECT_EQ(bits_of(composites[0]), bits_of(eager[0]));
  EXPECT_EQ(bits_of(composites[1]), bits_of(eager[1]));
  for (std::size_t i = 2; i < eager.size(); ++i)
    EXPECT_LT(largest_difference(composites[i], eager[i]), 1e-6) << "output " << i;
  // Forced fused, ndarray runs its reference kernels of the fused ops: the composites agree.
  const tensor::FusedPathScope fused(tensor::FusedPath::Fused);
  const std::vector<TensorHandle> kernels = replay_rows(graph, ndarray);
  for (std::size_t i = 0; i < kernels.size(); ++i)
    EXPECT_LT(largest_difference(composites[i], kernels[i]), 1e-6) << "output " << i;
}

TEST(FusedRowGraphs, TheirOtherVariantsExpandAsTheReferenceKernelsRun) {
  const TensorHandle x = Graph::input("x", kRowsX.shape(), DType::F32, Device::capture());
  const Graph graph = Graph::trace(
      {x}, row_variants_step(ops::require_grad(ops::with_autodiff(x, true))), {"total", "dx"});
  const Device ndarray = Device::ndarray();
  const TensorHandle real = ops::from_data(kRowsX, ndarray, TensorKind::Float);
  const std::vector<TensorHandle> composites = graph.replay(ndarray, {real});
  const tensor::FusedPathScope fused(tensor::FusedPath::Fused);
  const std::vector<TensorHandle> kernels = graph.replay(ndarray, {real});
  for (std::size_t i = 0; i < kernels.size(); ++i)
    EXPECT_LT(largest_difference(composites[i], kernels[i]), 1e-6) << "output " << i;
}

TEST(FusedRowGraphs, TheTextFormKeepsThem) {
  const Graph graph = captured_rows_step();
  const Graph loaded = Graph::from_text(graph.to_text());
  EXPECT_EQ(loaded.to_text(), graph.to_text());
  const Device cpu = Device::cpu();
  expect_bits_equal(replay_rows(loaded, cpu), replay_rows(graph, cpu));
}

TEST(FusedRowGraphs, SimplifyMergesAndFoldsThem) {
  const Device capture = Device::capture();
  const TensorHandle x = Graph::input("x", kRowsX.shape(), DType::F32, capture);
  const auto constant = [&](const TensorData& data) {
    return ops::from_data(data, capture, TensorKind::Float);
  };
  const TensorHandle weight = constant(kRowsWeight);
  const auto norm = [&](const TensorHandle& rows) {
    return ops::layer_norm(rows, {8}, weight, std::nullopt, 1e-5);
  };
  // The same layer_norm twice, and one of a constant.
  const TensorHandle y = ops::add(ops::add(norm(x), norm(x)), norm(constant(kRowsBias)));
  const Graph graph = Graph::trace({x}, {y});
  SimplifyReport report;
  const Graph simple = graph.simplified(&report);
  EXPECT_GE(report.repeated, 1u);
  EXPECT_GE(report.folded, 1u);
  EXPECT_LT(simple.op_count(), graph.op_count());
  const std::string text = simple.to_text();
  EXPECT_NE(text.find("= layer_norm("), std::string::npos) << text;
  // Folding computed the constant's layer_norm on ndarray, cpu computes it fused: within rounding.
  const Device cpu = Device::cpu();
  const TensorHandle real = ops::from_data(kRowsX, cpu, TensorKind::Float);
  EXPECT_LT(largest_difference(simple.replay(cpu, {real})[0], graph.replay(cpu, {real})[0]), 1e-6);
}

}  // namespace
}  // namespace ember::test
