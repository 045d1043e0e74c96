// Graphs recorded on the capture device: traced, replayed on a real device (checked against the
// same code run there eagerly, bit for bit), printed and read back, simplified; and the errors of
// each step.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "capture/capture_test_util.h"
#include "device/device_test_util.h"
#include "ember/ember.h"

namespace ember::test {
namespace {

/// The computation under test, written once: recorded on capture, run eagerly on ndarray.
Tensor<2> small_net(const Tensor<2>& x, const Tensor<2>& w) {
  const Tensor<2> h = activation::relu(x.matmul(w)) + 1.0;
  return activation::softmax(h * h, 1);
}

const TensorData kX(std::vector<float>{0.5f, -1.0f, 2.0f, 0.25f, 1.5f, -0.75f}, Shape{2, 3});
const TensorData kW(std::vector<float>{1.0f, -2.0f, 0.5f, 0.75f, -0.25f, 1.25f}, Shape{3, 2});

/// small_net of a placeholder x and an uploaded (constant) w.
Graph small_graph() {
  const Tensor<2> x = placeholder<2>("x", {2, 3});
  const Tensor<2> w = Tensor<2>::from_data(kW, Device::capture());
  return Graph::trace({x.handle()}, {small_net(x, w).handle()}, {"probs"});
}

TEST(Graph, ReplayComputesWhatTheRecordedCodeComputesEagerly) {
  const Graph graph = small_graph();
  EXPECT_EQ(graph.inputs().size(), 1u);
  EXPECT_EQ(graph.inputs()[0].name, "x");
  ASSERT_EQ(graph.outputs().size(), 1u);
  EXPECT_EQ(graph.outputs()[0].shape, (Shape{2, 2}));
  const Device ndarray = Device::ndarray();
  const Tensor<2> x = Tensor<2>::from_data(kX, ndarray);
  const Tensor<2> eager = small_net(x, Tensor<2>::from_data(kW, ndarray));
  const std::vector<TensorHandle> replayed = graph.replay(ndarray, {x.handle()});
  ASSERT_EQ(replayed.size(), 1u);
  EXPECT_EQ(bits_of(replayed[0]), bits_of(eager.handle()));
  // On every local device (cpu through its fusion, flex, libtorch, a GPU where there is one): the
  // same values as the same code run there.
  for (const Device& device : Device::enumerate(DeviceFilter::all())) {
    const Tensor<2> real_x = Tensor<2>::from_data(kX, device);
    EXPECT_EQ(bits_of(graph.replay(device, {real_x.handle()})[0]),
              bits_of(small_net(real_x, Tensor<2>::from_data(kW, device)).handle()))
        << device;
  }
}

TEST(Graph, TextIsStableAndReadsBackToTheSameGraph) {
  const std::string text = small_graph().to_text();
  EXPECT_EQ(text, small_graph().to_text()) << "the same recording gives the same text";
  EXPECT_TRUE(text.starts_with("ember-graph 1\n%0 = input \"x\" f32 [2, 3]\n")) << text;
  EXPECT_TRUE(contains(text, "= matmul(%0, %1) f32 [2, 2] ("));
  EXPECT_TRUE(contains(text, "output \"probs\" %"));
  const Graph loaded = Graph::from_text(text);
  EXPECT_EQ(loaded.to_text(), text);
  const Tensor<2> x = Tensor<2>::from_data(kX, Device::ndarray());
  EXPECT_EQ(bits_of(loaded.replay(Device::ndarray(), {x.handle()})[0]),
            bits_of(small_graph().replay(Device::ndarray(), {x.handle()})[0]));
}

TEST(Graph, SavesAndLoadsItsText) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("ember_graph_" + std::to_string(getpid()) + ".txt");
  small_graph().save(path);
  EXPECT_EQ(Graph::load(path).to_text(), small_graph().to_text());
  std::filesystem::remove(path);
  EXPECT_TRUE(
      contains(error_message<InvalidArgument>([&] { Graph::load(path); }), "[Graph::load]"));
}

TEST(Graph, MultiOutputOpsAndIntOutputsTravelThroughTheText) {
  const Tensor<2> x = placeholder<2>("x", {2, 3});
  const auto [values, indices] = x.sort_with_indices(1, true);
  const Graph graph = Graph::trace({x.handle()}, {values.handle(), indices.handle()});
  const std::string text = graph.to_text();
  EXPECT_TRUE(contains(text, "f32 [2, 3], i64 [2, 3]")) << text;
  EXPECT_TRUE(contains(text, ".1\n")) << "the indices are output 1 of the sort: " << text;
  const Graph loaded = Graph::from_text(text);
  const Tensor<2> real = Tensor<2>::from_data(kX, Device::ndarray());
  const auto [eager_values, eager_indices] = real.sort_with_indices(1, true);
  const std::vector<TensorHandle> out = loaded.replay(Device::ndarray(), {real.handle()});
  EXPECT_EQ(bits_of(out[0]), bits_of(eager_values.handle()));
  EXPECT_EQ(bits_of(out[1]), bits_of(eager_indices.handle()));
}

TEST(Graph, SimplifyRemovesDeadFoldsConstantsAndMergesRepeats) {
  const Device capture = Device::capture();
  const Tensor<2> x = placeholder<2>("x", {2, 3});
  const Tensor<2> a = Tensor<2>::from_data(kX, capture);
  const Tensor<2> b = Tensor<2>::from_data(kX, capture);           // the same bytes: one constant
  (void)x.exp();                                                   // dead: nothing uses it
  const Tensor<2> folded = a * 3.0 + b;                            // constants only: two folded ops
  const Tensor<2> y = (x * 2.0).sin() + (x * 2.0).sin() + folded;  // two repeated ops
  const Graph graph = Graph::trace({x.handle()}, {y.handle()});
  SimplifyReport report;
  const Graph simple = graph.simplified(&report);
  EXPECT_EQ(report.repeated, 2u);
  EXPECT_EQ(report.folded, 2u);
  EXPECT_EQ(graph.op_count(), 8u) << graph;
  EXPECT_EQ(simple.op_count(), 4u) << simple;  // x*2, sin, +, + the folded constant
  EXPECT_EQ(report.dead, 0u) << "the dead exp was never traced: no output depends on it";
  const Tensor<2> real = Tensor<2>::from_data(kX, Device::ndarray());
  EXPECT_EQ(bits_of(simple.replay(Device::ndarray(), {real.handle()})[0]),
            bits_of(graph.replay(Device::ndarray(), {real.handle()})[0]));
}

TEST(Graph, SimplifyRemovesWhatALoadedGraphComputesForNothing) {
  // A graph read from text may hold ops no output uses (a trace never does): here the text of a
  // graph of two outputs without its last output line.
  const Tensor<2> x = placeholder<2>("x", {2, 3});
  std::string text = Graph::trace({x.handle()}, {x.exp().handle(), (-x).handle()}).to_text();
  text.erase(text.rfind("\noutput") + 1);
  const Graph loaded = Graph::from_text(text);
  EXPECT_EQ(loaded.op_count(), 2u) << text;
  SimplifyReport report;
  EXPECT_EQ(loaded.simplified(&report).op_count(), 1u);
  EXPECT_EQ(report.dead, 1u);
}

TEST(Graph, SimplifyLeavesAFailingOpOfConstantsToFailWhenReplayed) {
  const Device capture = Device::capture();
  const Tensor<1> values =
      Tensor<1>::from_data(TensorData(std::vector<float>{1.0f, 2.0f}, Shape{2}), capture);
  const Tensor<1, Int> index =
      Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{5}, Shape{1}), capture);
  const Tensor<1> x = placeholder<1>("x", {1});
  const Graph simple =
      Graph::trace({x.handle()}, {(values.select(0, index) + x).handle()}).simplified();
  EXPECT_EQ(simple.op_count(), 2u) << simple;
  const Tensor<1> real = Tensor<1>::zeros({1}, Device::ndarray());
  EXPECT_THROW(simple.replay(Device::ndarray(), {real.handle()}), InvalidArgument);
}

TEST(Graph, RandomOpsDrawFreshKeysFromTheReplayDevice) {
  const Tensor<2> x = placeholder<2>("x", {2, 3});
  const Tensor<2> noise = Tensor<2>::random({2, 3}, Distribution::Default, Device::capture());
  const Graph graph = Graph::trace({x.handle()}, {(x + noise).handle()});
  const Device ndarray = Device::ndarray();
  const Tensor<2> real = Tensor<2>::from_data(kX, ndarray);
  ndarray.seed(7);
  const auto first = bits_of(graph.replay(ndarray, {real.handle()})[0]);
  const auto second = bits_of(graph.replay(ndarray, {real.handle()})[0]);
  EXPECT_NE(first, second) << "each replay draws as the op run eagerly would";
  ndarray.seed(7);
  const Tensor<2> eager = real + Tensor<2>::random({2, 3}, Distribution::Default, ndarray);
  EXPECT_EQ(first, bits_of(eager.handle()));
}

TEST(Graph, AutodiffOnCaptureRecordsTheBackwardOps) {
  const auto loss_of = [](const Tensor<2>& x, const Tensor<2>& w) {
    return (activation::tanh(x.matmul(w)) * 3.0).sum();
  };
  const Tensor<2> x = placeholder<2>("x", {2, 3});
  const Tensor<2> w = placeholder<2>("w", {3, 2}).autodiff().require_grad();
  const Tensor<2> grad = *w.grad(loss_of(x.autodiff(), w).backward());
  const Graph graph = Graph::trace({x.handle(), w.handle()}, {grad.handle()}, {"dw"});
  const Device ndarray = Device::ndarray().autodiff();
  const Tensor<2> real_x = Tensor<2>::from_data(kX, ndarray);
  const Tensor<2> real_w = Tensor<2>::from_data(kW, ndarray).require_grad();
  const Tensor<2> eager = *real_w.grad(loss_of(real_x, real_w).backward());
  const std::vector<TensorHandle> replayed = graph.replay(
      Device::ndarray(), {real_x.without_autodiff().handle(), real_w.detach().handle()});
  EXPECT_EQ(bits_of(replayed[0]), bits_of(eager.handle()));
}

TEST(GraphErrors, TraceNamesAPlaceholderMissingFromTheInputs) {
  const Tensor<2> x = placeholder<2>("x", {2, 3});
  const Tensor<2> z = placeholder<2>("z", {2, 3});
  const std::string message =
      error_message<InvalidArgument>([&] { Graph::trace({x.handle()}, {(x + z).handle()}); });
  EXPECT_TRUE(contains(message, "[Graph::trace]"));
  EXPECT_TRUE(contains(message, "'z'"));
  const Tensor<2> real = Tensor<2>::zeros({2, 3}, Device::ndarray());
  EXPECT_TRUE(
      contains(error_message<InvalidArgument>([&] { Graph::trace({x.handle()}, {real.handle()}); }),
               "not of capture"));
  EXPECT_TRUE(contains(error_message<InvalidArgument>(
                           [] { Graph::input("x", Shape{2}, DType::F32, Device::ndarray()); }),
                       "[Graph::input]"));
  EXPECT_TRUE(contains(error_message<InvalidArgument>(
                           [] { Graph::input("a\"b", Shape{2}, DType::F32, Device::capture()); }),
                       "name"));
}

TEST(GraphErrors, ACapturedLossRefusesOutOfRangeTargetsWhenReplayed) {
  // Captured, cross_entropy cannot see its targets: the replay refuses a bad one, and one equal
  // to ignore_index, in the composite's gather (ndarray) or the fused kernel (cpu).
  const Tensor<2> logits = placeholder<2>("logits", {2, 3});
  const Tensor<1, Int> targets = placeholder<1, Int>("targets", {2}, DType::I64);
  const Graph graph = Graph::trace({logits.handle(), targets.handle()},
                                   {module::cross_entropy(logits, targets).handle()});
  for (const Device& device : {Device::ndarray(), Device::cpu()}) {
    const Tensor<2> real = Tensor<2>::from_data(kX, device);
    const auto targets_of = [&](int64_t target) {
      return Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{0, target}, Shape{2}),
                                       device);
    };
    const auto replay_with = [&](int64_t target) {
      return bits_of(graph.replay(device, {real.handle(), targets_of(target).handle()})[0]);
    };
    EXPECT_EQ(replay_with(2), bits_of(module::cross_entropy(real, targets_of(2)).handle()))
        << device;
    EXPECT_THROW(replay_with(3), InvalidArgument) << device;
    EXPECT_THROW(replay_with(-100), InvalidArgument) << device;
  }
}

TEST(GraphErrors, ReplayRefusesInputsOfAnotherShapeDtypeOrDevice) {
  const Graph graph = small_graph();
  const Device ndarray = Device::ndarray();
  const auto message_for = [&](const TensorHandle& x) {
    return error_message<InvalidArgument>([&] { graph.replay(ndarray, {x}); });
  };
  EXPECT_TRUE(contains(message_for(Tensor<2>::zeros({3, 3}, ndarray).handle()), "[2, 3]"));
  EXPECT_TRUE(contains(
      message_for(
          Tensor<2>::zeros({2, 3}, TensorCreationOptions(ndarray).with_dtype(DType::F64)).handle()),
      "f64"));
  EXPECT_TRUE(contains(message_for(Tensor<2>::zeros({2, 3}, Device::cpu()).handle()), "cpu"));
  EXPECT_TRUE(contains(error_message<InvalidArgument>([&] { graph.replay(ndarray, {}); }),
                       "takes 1 inputs, got 0"));
}

TEST(GraphErrors, MalformedTextNamesTheLineAndWhat) {
  const struct {
    std::string text;
    std::string expected;
  } cases[] = {
      {"", "no graph header"},
      {"ember-graph 2\n", "expected 'ember-graph 1'"},
      {"ember-graph 1\n%1 = input \"x\" f32 [2]\n", "expected node %0"},
      {"ember-graph 1\n%0 = input \"x\" q8 [2]\n", "unknown dtype 'q8'"},
      {"ember-graph 1\n%0 = input \"x\" f32 [-2]\n", "negative dim"},
      {"ember-graph 1\n%0 = input \"x\" f32 [4611686018427387904, 4]\n", "too large"},
      {"ember-graph 1\n%0 = constant f32 [2] 0000803f\n", "8 bytes written with 8 hex"},
      {"ember-graph 1\n%0 = constant f32 [1] 0000803g\n", "not a lowercase hex digit"},
      {"ember-graph 1\n%0 = input \"x\" f32 [2]\n%1 = exp(%3) f32 [2] (op = 0)\n",
       "%3 is not an earlier node"},
      {"ember-graph 1\n%0 = input \"x\" f32 [2]\n%1 = sin(%0) f32 [3] (op = 0, fields = [(int = "
       "7)])\n",
       "not those the op's rule gives"},
      {"ember-graph 1\n%0 = input \"x\" f32 [2]\n%1 = sin(%0) f32 [2] (op = 0, fields = [(int = "
       "0)])\n",
       "not 'sin'"},
      {"ember-graph 1\n%0 = input \"x\" f32 [2]\n%1 = exp(%0) f32 [2] ((((((((((op = 0))))))))))\n",
       "nested deeper"},
      {"ember-graph 1\n%0 = input \"x\" f32 [2]\n%1 = exp(%0) f32 [2] (op = 0, fields = [(bogus = "
       "1)])\n",
       "malformed op text"},
      {"ember-graph 1\n%0 = input \"x\" f32 [2]\noutput \"y\" %0.1\n", "%0 has no output 1"},
  };
  for (const auto& c : cases) {
    const std::string message = error_message<InvalidArgument>([&] { Graph::from_text(c.text); });
    EXPECT_TRUE(contains(message, "[Graph::from_text]")) << c.text;
    EXPECT_TRUE(contains(message, c.expected)) << c.text;
  }
}

}  // namespace
}  // namespace ember::test
