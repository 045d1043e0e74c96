// ONNX import under bad and hostile models: every malformed field refused with an
// InvalidArgument naming it (before anything is allocated from it), unsupported ops listed all at
// once before anything runs, graph attributes bounded, and the model's weights as named tensors;
// BitCast's arithmetic against std::bit_cast at the edges of f32, the arc functions' Newton steps
// against the C library; the random ops' draws against their distributions' moments. The values
// of imported
// ops are checked against ONNX's reference by onnx_node_suite_test.cpp and against PyTorch by
// onnx_pytorch_test.cpp.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ember/onnx.h"
#include "ember/record/safetensors.h"
#include "ember/tensor_ops.h"
#include "support/invalid_argument.h"
#include "support/source_dir.h"
#include "support/temp_dir.h"

namespace ember {
namespace {

using ::onnx::TensorProto;

/// A model of opset 17 with one float input "x" of dims, and "y" as its output.
::onnx::ModelProto model_with_input(std::vector<int64_t> dims, int64_t opset = 17) {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  ::onnx::OperatorSetIdProto& import = *model.add_opset_import();
  import.set_domain("");
  import.set_version(opset);
  ::onnx::GraphProto& graph = *model.mutable_graph();
  ::onnx::ValueInfoProto& input = *graph.add_input();
  input.set_name("x");
  auto& tensor = *input.mutable_type()->mutable_tensor_type();
  tensor.set_elem_type(TensorProto::FLOAT);
  for (int64_t dim : dims)
    tensor.mutable_shape()->add_dim()->set_dim_value(dim);
  ::onnx::ValueInfoProto& output = *graph.add_output();
  output.set_name("y");
  output.mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  return model;
}

::onnx::NodeProto& add_node(::onnx::ModelProto& model, const std::string& op,
                            std::vector<std::string> inputs, std::vector<std::string> outputs,
                            const std::string& name = "") {
  ::onnx::NodeProto& node = *model.mutable_graph()->add_node();
  node.set_op_type(op);
  node.set_name(name);
  for (const std::string& input : inputs)
    node.add_input(input);
  for (const std::string& output : outputs)
    node.add_output(output);
  return node;
}

TensorProto& add_initializer(::onnx::ModelProto& model, const std::string& name,
                             std::vector<int64_t> dims, const std::string& raw) {
  TensorProto& tensor = *model.mutable_graph()->add_initializer();
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::FLOAT);
  for (int64_t dim : dims)
    tensor.add_dims(dim);
  tensor.set_raw_data(raw);
  return tensor;
}

onnx::Model parse(const ::onnx::ModelProto& model) {
  const std::string bytes = model.SerializeAsString();
  return onnx::Model::parse(std::as_bytes(std::span(bytes)));
}

std::string raw_floats(std::vector<float> values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

TEST(OnnxImport, GarbageIsNotAModel) {
  const std::string bytes = "\xff\xff\xff\xff not protobuf";
  EXPECT_NE(test::invalid_argument_message([&] {
              onnx::Model::parse(std::as_bytes(std::span(bytes)));
            }).find("not an ONNX model"),
            std::string::npos);
}

TEST(OnnxImport, AMissingFileNamesItsPath) {
  EXPECT_NE(test::invalid_argument_message([] {
              onnx::Model::load("/nonexistent/model.onnx");
            }).find("/nonexistent/model.onnx: cannot be opened"),
            std::string::npos);
}

TEST(OnnxImport, OpsetsBefore13AreRefused) {
  ::onnx::ModelProto model = model_with_input({2}, 12);
  add_node(model, "Relu", {"x"}, {"y"});
  EXPECT_NE(test::invalid_argument_message([&] { parse(model); }).find("opset 12 is older than 13"),
            std::string::npos);
}

TEST(OnnxImport, EveryUnsupportedOpIsListedBeforeAnythingRuns) {
  ::onnx::ModelProto model = model_with_input({2});
  add_node(model, "Relu", {"x"}, {"a"});
  add_node(model, "FancyOp", {"a"}, {"b"}, "first_fancy");
  add_node(model, "FancyOp", {"b"}, {"c"}, "second_fancy");
  add_node(model, "Swirl", {"c"}, {"d"}, "swirl");
  add_node(model, "Relu", {"d"}, {"y"});
  add_node(model, "Custom", {"d"}, {"e"}).set_domain("com.example");
  const onnx::Model parsed = parse(model);
  const std::string message = test::invalid_argument_message([&] { parsed.to_graph({Shape{2}}); });
  EXPECT_NE(message.find("FancyOp (2 nodes, first node 'first_fancy' (FancyOp))"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("Swirl (1 node, first node 'swirl' (Swirl))"), std::string::npos);
  EXPECT_NE(message.find("com.example::Custom"), std::string::npos);
  const std::vector<onnx::OpCount> counts = parsed.op_counts();
  ASSERT_EQ(counts.size(), 4U);
  EXPECT_EQ(counts[3].op_type, "com.example::Custom");
  EXPECT_EQ(counts[2].op_type, "Swirl");
  EXPECT_EQ(counts[1].op_type, "Relu");
  EXPECT_EQ(counts[1].count, 2U);
  EXPECT_TRUE(counts[1].supported);
  EXPECT_FALSE(counts[0].supported);
}

TEST(OnnxImport, RawDataMustHoldWhatTheDimsSay) {
  ::onnx::ModelProto model = model_with_input({2});
  add_initializer(model, "w", {2, 3}, raw_floats({1, 2, 3}));
  add_node(model, "Add", {"x", "w"}, {"y"});
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(model);
            }).find("initializer 'w': raw_data holds 12 bytes, its dims and type say 24"),
            std::string::npos);
}

TEST(OnnxImport, HugeOrNegativeDimsAllocateNothing) {
  ::onnx::ModelProto model = model_with_input({2});
  add_node(model, "Add", {"x", "w"}, {"y"});
  TensorProto& w = add_initializer(model, "w", {int64_t{1} << 40}, "");
  EXPECT_NE(test::invalid_argument_message([&] { parse(model); }).find("raw_data holds 0 bytes"),
            std::string::npos);
  w.clear_dims();
  w.add_dims(int64_t{1} << 62);
  w.add_dims(int64_t{1} << 62);
  EXPECT_NE(
      test::invalid_argument_message([&] { parse(model); }).find("more bytes than int64 holds"),
      std::string::npos);
  w.clear_dims();
  w.add_dims(-3);
  EXPECT_NE(test::invalid_argument_message([&] { parse(model); }).find("dim -3 is negative"),
            std::string::npos);
  w.clear_dims();
  w.add_dims(4);
  w.clear_raw_data();
  w.add_float_data(1.0F);
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(model);
            }).find("float_data holds 1 values, its dims say 4"),
            std::string::npos);
}

TEST(OnnxImport, AnEmptyRawDataOfAnEmptyTensorIsRead) {
  // Found by the fuzzer: an empty raw_data was copied from its (null) data pointer.
  ::onnx::ModelProto model = model_with_input({2});
  add_initializer(model, "empty", {0, 3}, "");
  add_node(model, "Relu", {"x"}, {"y"});
  const onnx::Model parsed = parse(model);
  ASSERT_EQ(parsed.initializers().size(), 1U);
  EXPECT_EQ(parsed.initializers()[0].data.shape(), (Shape{0, 3}));
}

TEST(OnnxImport, ExternalDataIsRefused) {
  ::onnx::ModelProto model = model_with_input({2});
  TensorProto& w = add_initializer(model, "w", {2}, "");
  w.clear_raw_data();
  w.set_data_location(TensorProto::EXTERNAL);
  auto& location = *w.add_external_data();
  location.set_key("location");
  location.set_value("../../etc/passwd");
  add_node(model, "Add", {"x", "w"}, {"y"});
  EXPECT_NE(test::invalid_argument_message([&] { parse(model); }).find("external file"),
            std::string::npos);
}

TEST(OnnxImport, ElementTypesWithoutADtypeAreNamed) {
  ::onnx::ModelProto model = model_with_input({2});
  add_initializer(model, "s", {1}, "").set_data_type(TensorProto::STRING);
  add_node(model, "Relu", {"x"}, {"y"});
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(model);
            }).find("element type STRING has no ember dtype"),
            std::string::npos);
  model.mutable_graph()->clear_initializer();
  model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      999);
  EXPECT_NE(test::invalid_argument_message([&] { parse(model); }).find("element type 999"),
            std::string::npos);
}

TEST(OnnxImport, NamesMustBeDefinedBeforeUseAndOnce) {
  ::onnx::ModelProto model = model_with_input({2});
  add_node(model, "Relu", {"b"}, {"a"}, "first");  // a cycle: first reads second's output
  add_node(model, "Relu", {"a"}, {"b"}, "second");
  add_node(model, "Relu", {"a"}, {"y"});
  EXPECT_NE(test::invalid_argument_message([&] { parse(model); })
                .find("node 'first' (Relu) reads 'b', which no input, initializer or earlier "
                      "node defines (an undefined name, or a cycle)"),
            std::string::npos);
  ::onnx::ModelProto twice = model_with_input({2});
  add_node(twice, "Relu", {"x"}, {"y"}, "one");
  add_node(twice, "Relu", {"x"}, {"y"}, "two");
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(twice);
            }).find("value 'y' is defined twice (by node 'two'"),
            std::string::npos);
  ::onnx::ModelProto dangling = model_with_input({2});
  add_node(dangling, "Relu", {"x"}, {"z"});
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(dangling);
            }).find("graph output 'y' is not defined"),
            std::string::npos);
}

TEST(OnnxImport, ValuesAShapeNeedsMustBeKnownWhenBuilding) {
  ::onnx::ModelProto model = model_with_input({2, 3});
  ::onnx::ValueInfoProto& shape = *model.mutable_graph()->add_input();
  shape.set_name("s");
  shape.mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  add_node(model, "Cast", {"s"}, {"si"}).add_attribute()->CopyFrom([] {
    ::onnx::AttributeProto to;
    to.set_name("to");
    to.set_type(::onnx::AttributeProto::INT);
    to.set_i(TensorProto::INT64);
    return to;
  }());
  add_node(model, "Reshape", {"x", "si"}, {"y"}, "reshape_it");
  const std::string message = test::invalid_argument_message([&] {
    parse(model).to_graph({Shape{2, 3}, Shape{2}});
  });
  EXPECT_NE(message.find("node 'reshape_it' (Reshape): input 1 (shape, 'si') must be known"),
            std::string::npos)
      << message;
}

TEST(OnnxImport, InputsMustFitTheModel) {
  ::onnx::ModelProto model = model_with_input({2, 3});
  add_node(model, "Relu", {"x"}, {"y"});
  const onnx::Model parsed = parse(model);
  EXPECT_NE(test::invalid_argument_message([&] {
              parsed.to_graph({Shape{3, 2}});
            }).find("input 0 ('x') of shape [3, 2] does not fit the model's dims"),
            std::string::npos);
  EXPECT_NE(
      test::invalid_argument_message([&] { parsed.to_graph({}); }).find("takes 1 inputs, got 0"),
      std::string::npos);
  const TensorData doubles(std::vector<double>(6, 1.0), Shape{2, 3});
  EXPECT_NE(
      test::invalid_argument_message([&] { parsed.run(Device::ndarray(), {doubles}); }).find("f64"),
      std::string::npos);
}

TEST(OnnxImport, HostileAttributesAreRefusedByName) {
  ::onnx::ModelProto model = model_with_input({1, 1, 4, 4});
  add_initializer(model, "w", {1, 1, 2, 2}, raw_floats({1, 1, 1, 1}));
  ::onnx::NodeProto& conv = add_node(model, "Conv", {"x", "w"}, {"y"}, "conv");
  ::onnx::AttributeProto& strides = *conv.add_attribute();
  strides.set_name("strides");
  strides.set_type(::onnx::AttributeProto::INTS);
  strides.add_ints(INT64_MAX);
  strides.add_ints(1);
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(model).to_graph({Shape{1, 1, 4, 4}});
            }).find("node 'conv' (Conv): strides holds 9223372036854775807"),
            std::string::npos);
  strides.set_type(::onnx::AttributeProto::FLOATS);
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(model).to_graph({Shape{1, 1, 4, 4}});
            }).find("attribute 'strides' is of type FLOATS, expected INTS"),
            std::string::npos);
}

TEST(OnnxImport, IndexRowsLongerThanTheDataAreRefused) {
  // Index rows of 3 entries into data of rank 1 (found by ember_fuzz_onnx_import: ScatterND
  // read data's dims past their end before the rows were checked).
  for (const std::string op : {"ScatterND", "GatherND"}) {
    ::onnx::ModelProto model = model_with_input({4});
    TensorProto& indices = *model.mutable_graph()->add_initializer();
    indices.set_name("i");
    indices.set_data_type(TensorProto::INT64);
    indices.add_dims(1);
    indices.add_dims(3);
    for (int64_t v : {0, 0, 0})
      indices.add_int64_data(v);
    add_initializer(model, "u", {1}, raw_floats({1}));
    std::vector<std::string> inputs = {"x", "i"};
    if (op == "ScatterND") inputs.push_back("u");
    add_node(model, op, inputs, {"y"}, "nd");
    EXPECT_NE(test::invalid_argument_message([&] {
                parse(model).to_graph({Shape{4}});
              }).find("(" + op + "): index rows of 3 entries for data of rank 1"),
              std::string::npos)
        << op;
  }
}

/// A graph attribute name of node: inputs and outputs named, nodes added by the caller.
::onnx::GraphProto& add_graph(::onnx::NodeProto& node, const std::string& name,
                              std::vector<std::string> inputs, std::vector<std::string> outputs) {
  ::onnx::AttributeProto& attribute = *node.add_attribute();
  attribute.set_name(name);
  attribute.set_type(::onnx::AttributeProto::GRAPH);
  ::onnx::GraphProto& graph = *attribute.mutable_g();
  for (const std::string& input : inputs)
    graph.add_input()->set_name(input);
  for (const std::string& output : outputs)
    graph.add_output()->set_name(output);
  return graph;
}

TEST(OnnxImport, GraphAttributesAreCheckedAndBounded) {
  // An op ember does not import inside a branch is listed before anything runs.
  ::onnx::ModelProto branch = model_with_input({2});
  add_initializer(branch, "c", {}, raw_floats({1})).set_data_type(TensorProto::FLOAT);
  ::onnx::NodeProto& if_node = add_node(branch, "If", {"c"}, {"y"}, "if");
  ::onnx::NodeProto& fancy = *add_graph(if_node, "then_branch", {}, {"t"}).add_node();
  fancy.set_op_type("FancyOp");
  fancy.add_output("t");
  add_graph(if_node, "else_branch", {}, {"x"});
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(branch).to_graph({Shape{2}});
            }).find("ops ember does not import: FancyOp"),
            std::string::npos);
  const std::vector<onnx::OpCount> counts = parse(branch).op_counts();  // FancyOp, If
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[0].op_type, "FancyOp");
  EXPECT_EQ(counts[0].count, 1u);
  EXPECT_FALSE(counts[0].supported);
  EXPECT_TRUE(counts[1].supported);
  // A body reading a name nothing defines is named; so is a trip count without a condition
  // beyond the bound, which would unroll without end.
  ::onnx::ModelProto looped = model_with_input({2});
  TensorProto& trips = add_initializer(looped, "m", {}, "");
  trips.clear_raw_data();
  trips.set_data_type(TensorProto::INT64);
  trips.add_int64_data(3);
  ::onnx::NodeProto& loop = add_node(looped, "Loop", {"m", "", "x"}, {"y"}, "loop");
  ::onnx::GraphProto& body = add_graph(loop, "body", {"i", "c", "v"}, {"c", "w"});
  ::onnx::NodeProto& add = *body.add_node();
  add.set_op_type("Add");
  add.add_input("v");
  add.add_input("nowhere");
  add.add_output("w");
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(looped).to_graph({Shape{2}});
            }).find("reads 'nowhere', which nothing defines"),
            std::string::npos);
  add.set_input(1, "v");  // w = 2 v, three times: 8 x
  const std::vector<TensorData> y =
      parse(looped).run(Device::ndarray(), {TensorData(std::vector<float>{1, -2}, Shape{2})});
  EXPECT_EQ(y.at(0), TensorData(std::vector<float>{8, -16}, Shape{2}));
  trips.set_int64_data(0, int64_t{1} << 40);
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(looped).to_graph({Shape{2}});
            }).find("node 'loop' (Loop): a trip count of 1099511627776 without a condition"),
            std::string::npos);
  // Loops within the bound each, nested so that they multiply (2^16 iterations of a body that
  // runs the same Loop again): refused by the import's node budget, not built for hours.
  trips.set_int64_data(0, int64_t{1} << 16);
  const ::onnx::GraphProto doubling = body;  // (i, c, v) -> (c, w = v + v)
  ::onnx::NodeProto& inner = *body.add_node();
  inner.set_op_type("Loop");
  inner.set_name("inner");
  for (const char* input : {"m", "", "w"})
    inner.add_input(input);
  inner.add_output("u");
  ::onnx::AttributeProto& inner_body = *inner.add_attribute();
  inner_body.set_name("body");
  inner_body.set_type(::onnx::AttributeProto::GRAPH);
  *inner_body.mutable_g() = doubling;
  body.mutable_output(1)->set_name("u");
  EXPECT_NE(test::invalid_argument_message([&] {
              parse(looped).to_graph({Shape{2}});
            }).find("nodes (graph attributes and loops unrolled)"),
            std::string::npos);
}

TEST(OnnxImport, BitCastGivesTheBitsOfEdgeValues) {
  // ember computes the IEEE fields arithmetically; std::bit_cast is the oracle.
  const std::vector<float> values = {0.0f,
                                     -0.0f,
                                     std::numeric_limits<float>::denorm_min(),
                                     -3.5e-42f,
                                     std::numeric_limits<float>::min(),
                                     std::numeric_limits<float>::max(),
                                     std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(),
                                     1.5f,
                                     -7.25e-3f,
                                     0.1f,
                                     16777215.0f};
  std::vector<int32_t> bits;
  for (float v : values)
    bits.push_back(std::bit_cast<int32_t>(v));
  ::onnx::ModelProto to_int = model_with_input({static_cast<int64_t>(values.size())});
  ::onnx::AttributeProto& to = *add_node(to_int, "BitCast", {"x"}, {"y"}).add_attribute();
  to.set_name("to");
  to.set_type(::onnx::AttributeProto::INT);
  to.set_i(TensorProto::INT32);
  const Shape shape{static_cast<int64_t>(values.size())};
  for (const Device& device : {Device::ndarray(), Device::cpu()}) {
    EXPECT_EQ(parse(to_int).run(device, {TensorData(values, shape)}).at(0),
              TensorData(bits, shape));
  }
  // Back: the same values, and the canonical quiet NaN's bits a NaN.
  ::onnx::ModelProto to_float = to_int;
  to_float.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      TensorProto::INT32);
  to_float.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_i(TensorProto::FLOAT);
  bits.back() = 0x7FC00000;
  const std::vector<float> back =
      parse(to_float).run(Device::cpu(), {TensorData(bits, shape)}).at(0).to_vector<float>();
  for (std::size_t i = 0; i + 1 < values.size(); ++i)
    EXPECT_EQ(std::bit_cast<int32_t>(back[i]), bits[i]) << i;
  EXPECT_TRUE(std::isnan(back.back()));
}

TEST(OnnxImport, ArcFunctionsMatchTheCLibrary) {
  // Atan, Asin and Acos are Newton steps over tan; the C library is the oracle, in f64.
  std::vector<double> xs = {0.0,       -0.0,      1e-30, -1e-8,
                            0.5,       -0.999999, 1.0,   -1.0,
                            1.0000001, -3.0,      1e8,   std::numeric_limits<double>::infinity()};
  for (int i = -100; i <= 100; ++i)
    xs.push_back(i / 100.0);
  const Shape shape{static_cast<int64_t>(xs.size())};
  for (const auto& [op, f] : std::vector<std::pair<std::string, double (*)(double)>>{
           {"Atan", std::atan}, {"Asin", std::asin}, {"Acos", std::acos}}) {
    ::onnx::ModelProto model = model_with_input({shape.dims()[0]});
    model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
        TensorProto::DOUBLE);
    add_node(model, op, {"x"}, {"y"});
    const std::vector<double> y =
        parse(model).run(Device::cpu(), {TensorData(xs, shape)}).at(0).to_vector<double>();
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double expected = f(xs[i]);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(y[i])) << op << "(" << xs[i] << ")";
      } else {
        EXPECT_NEAR(y[i], expected, 4e-16 * std::max(1.0, std::abs(expected)))
            << op << "(" << xs[i] << ")";
      }
    }
  }
}

TEST(OnnxImport, DetPivotsAndFindsSingularMatrices) {
  // Rows 0 and 2 of an upper triangular matrix of diagonal (2, -3, 0.5, 4) swapped: -(-12); then
  // a matrix whose rows 1 and 3 are equal: 0. Row 0 starts with 0, so the elimination must pivot.
  const std::vector<float> values = {0, 0, 0.5f, 7, 0, -3, 2, 5, 2, 1, 3, -1, 0, 0, 0, 4,
                                     0, 1, 2,    3, 4, 5,  6, 7, 1, 0, 1, 0,  4, 5, 6, 7};
  ::onnx::ModelProto model = model_with_input({2, 4, 4});
  add_node(model, "Det", {"x"}, {"y"});
  for (const Device& device : {Device::ndarray(), Device::cpu()}) {
    const std::vector<float> det =
        parse(model).run(device, {TensorData(values, Shape{2, 4, 4})}).at(0).to_vector<float>();
    EXPECT_NEAR(det.at(0), 12.0f, 1e-5f);
    EXPECT_NEAR(det.at(1), 0.0f, 1e-5f);
  }
}

TEST(OnnxImport, ALongChainOfNodesBuildsAndRunsWithoutDeepRecursion) {
  // A hostile model may chain many nodes: building, tracing, replaying and freeing the graph
  // must not recurse once per node.
  ::onnx::ModelProto model = model_with_input({2});
  std::string previous = "x";
  for (int i = 0; i < 50000; ++i) {
    const std::string next = i + 1 == 50000 ? "y" : "v" + std::to_string(i);
    add_node(model, "Neg", {previous}, {next});
    previous = next;
  }
  const std::vector<TensorData> y =
      parse(model).run(Device::ndarray(), {TensorData(std::vector<float>{1, -2}, Shape{2})});
  EXPECT_EQ(y.at(0), TensorData(std::vector<float>{1, -2}, Shape{2}));  // an even count of Neg
}

TEST(OnnxImport, TheGraphReplaysOnAnyDeviceAsRunDoes) {
  ::onnx::ModelProto model = model_with_input({2, 2});
  add_initializer(model, "w", {2, 2}, raw_floats({1, -2, -3, 4}));
  add_node(model, "MatMul", {"x", "w"}, {"m"});
  add_node(model, "Relu", {"m"}, {"y"});
  const onnx::Model parsed = parse(model);
  const Graph graph = parsed.to_graph({Shape{2, 2}});
  EXPECT_EQ(graph.inputs().at(0).name, "x");
  EXPECT_EQ(graph.outputs().at(0).name, "y");
  EXPECT_EQ(graph.op_count(), 2U);  // matmul, relu
  const TensorData x(std::vector<float>{1, -1, -2, 0.5F}, Shape{2, 2});
  // [[1, -1], [-2, 0.5]] @ [[1, -2], [-3, 4]] = [[4, -6], [-3.5, 6]], then relu: by hand.
  const TensorData expected(std::vector<float>{4, 0, 0, 6}, Shape{2, 2});
  for (const Device& device : {Device::cpu(), Device::ndarray()}) {
    const TensorHandle input = ops::from_data(x, device, TensorKind::Float);
    EXPECT_EQ(ops::into_data(graph.replay(device, {input}).at(0)), expected) << device;
    EXPECT_EQ(parsed.run(device, {x}).at(0), expected) << device;
  }
}

TEST(OnnxImport, InitializersAreNamedTensorsForSafetensors) {
  ::onnx::ModelProto model = model_with_input({2});
  add_initializer(model, "bias", {2}, raw_floats({0.5F, -1.5F}));
  add_node(model, "Add", {"x", "bias"}, {"y"});
  const onnx::Model parsed = parse(model);
  ASSERT_EQ(parsed.initializers().size(), 1U);
  EXPECT_EQ(parsed.initializers()[0].name, "bias");
  const TensorData expected(std::vector<float>{0.5F, -1.5F}, Shape{2});
  EXPECT_EQ(parsed.initializers()[0].data, expected);
  test::TempDir dir("onnx-weights");
  record::save_safetensors({parsed.initializers(), {}}, dir.path() / "weights.safetensors");
  const record::Record loaded = record::load_safetensors(dir.path() / "weights.safetensors");
  ASSERT_NE(loaded.find("bias"), nullptr);
  EXPECT_EQ(*loaded.find("bias"), expected);
  // x + bias, with x = [1, 2]: values by hand.
  const std::vector<TensorData> y =
      parsed.run(Device::cpu(), {TensorData(std::vector<float>{1, 2}, Shape{2})});
  EXPECT_EQ(y.at(0), TensorData(std::vector<float>{1.5F, 0.5F}, Shape{2}));
}

/// The mean and the (biased) variance of values.
std::pair<double, double> moments(const std::vector<double>& values) {
  double sum = 0, squares = 0;
  for (double v : values) {
    sum += v;
    squares += v * v;
  }
  const double mean = sum / static_cast<double>(values.size());
  return {mean, squares / static_cast<double>(values.size()) - mean * mean};
}

TEST(OnnxImport, RandomOpsDrawFromTheSeededDeviceEveryRun) {
  // RandomUniform on [-2, 3): 4096 draws. The mean 0.5 and the variance 25/12 are the uniform
  // distribution's; the bounds are 5 standard deviations of their estimates.
  ::onnx::ModelProto model = model_with_input({2});
  ::onnx::NodeProto& node = add_node(model, "RandomUniform", {}, {"y"}, "draw");
  for (const auto& [name, value] : {std::pair{"low", -2.0F}, std::pair{"high", 3.0F}}) {
    ::onnx::AttributeProto& attribute = *node.add_attribute();
    attribute.set_name(name);
    attribute.set_type(::onnx::AttributeProto::FLOAT);
    attribute.set_f(value);
  }
  ::onnx::AttributeProto& shape = *node.add_attribute();
  shape.set_name("shape");
  shape.set_type(::onnx::AttributeProto::INTS);
  shape.add_ints(4096);
  const onnx::Model parsed = parse(model);
  const TensorData x(std::vector<float>{0, 0}, Shape{2});
  for (const Device& device : {Device::cpu(), Device::ndarray()}) {
    device.seed(7);
    const TensorData first = parsed.run(device, {x}).at(0);
    const TensorData second = parsed.run(device, {x}).at(0);
    device.seed(7);
    EXPECT_EQ(parsed.run(device, {x}).at(0), first) << device << ": the seed repeats the draw";
    EXPECT_NE(second, first) << device << ": each run draws anew (never folded when built)";
    const std::vector<double> values = first.to_vector<double>();
    EXPECT_EQ(first.dtype(), DType::F32);
    EXPECT_EQ(first.shape(), Shape{4096});
    for (double v : values)
      ASSERT_TRUE(v >= -2 && v < 3) << v;
    const auto [mean, variance] = moments(values);
    EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(25.0 / 12 / 4096));
    EXPECT_NEAR(variance, 25.0 / 12, 5 * std::sqrt((625.0 / 80 - 625.0 / 144) / 4096));
  }
}

TEST(OnnxImport, RandomNormalLikeTakesTheInputsShapeAndDtype) {
  // mean 1, scale 2: the sample mean within 5 std (2 / 64), the variance 4 within 5 std of its
  // estimate (sqrt(2) 4 / 64, a normal's).
  ::onnx::ModelProto model = model_with_input({64, 64});
  model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      TensorProto::DOUBLE);
  ::onnx::NodeProto& node = add_node(model, "RandomNormalLike", {"x"}, {"y"});
  for (const auto& [name, value] : {std::pair{"mean", 1.0F}, std::pair{"scale", 2.0F}}) {
    ::onnx::AttributeProto& attribute = *node.add_attribute();
    attribute.set_name(name);
    attribute.set_type(::onnx::AttributeProto::FLOAT);
    attribute.set_f(value);
  }
  const TensorData x = TensorData::zeros(Shape{64, 64}, DType::F64);
  const TensorData y = parse(model).run(Device::cpu(), {x}).at(0);
  EXPECT_EQ(y.dtype(), DType::F64);
  EXPECT_EQ(y.shape(), (Shape{64, 64}));
  const auto [mean, variance] = moments(y.to_vector<double>());
  EXPECT_NEAR(mean, 1.0, 5 * 2.0 / 64);
  EXPECT_NEAR(variance, 4.0, 5 * std::sqrt(2.0) * 4 / 64);
}

TEST(OnnxImport, MultinomialSamplesTheSoftmaxOfEachRow) {
  // Row 0: log-probabilities of 0.1, 0.2, 0.7; row 1: equal logits. 4000 samples a row; each
  // class's count within 5 binomial standard deviations of 4000 p.
  ::onnx::ModelProto model = model_with_input({2, 3});
  ::onnx::NodeProto& node = add_node(model, "Multinomial", {"x"}, {"y"});
  ::onnx::AttributeProto& samples = *node.add_attribute();
  samples.set_name("sample_size");
  samples.set_type(::onnx::AttributeProto::INT);
  samples.set_i(4000);
  const std::vector<double> p = {0.1, 0.2, 0.7, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  std::vector<float> logits;
  for (std::size_t i = 0; i < 3; ++i)
    logits.push_back(static_cast<float>(std::log(p[i])));
  logits.insert(logits.end(), {5, 5, 5});
  for (const Device& device : {Device::cpu(), Device::ndarray()}) {
    const TensorData y = parse(model).run(device, {TensorData(logits, Shape{2, 3})}).at(0);
    ASSERT_EQ(y.dtype(), DType::I32);
    ASSERT_EQ(y.shape(), (Shape{2, 4000}));
    std::vector<int> counts(6);
    const std::vector<int32_t> classes = y.to_vector<int32_t>();
    for (std::size_t i = 0; i < classes.size(); ++i) {
      ASSERT_TRUE(classes[i] >= 0 && classes[i] < 3) << classes[i];
      ++counts[i / 4000 * 3 + static_cast<std::size_t>(classes[i])];
    }
    for (std::size_t k = 0; k < 6; ++k)
      EXPECT_NEAR(counts[k], 4000 * p[k], 5 * std::sqrt(4000 * p[k] * (1 - p[k]))) << k;
  }
}

TEST(OnnxImport, TrainingDropoutRefusesARatioOfOne) {
  ::onnx::ModelProto model = model_with_input({4});
  add_initializer(model, "ratio", {}, raw_floats({1.0F}));
  TensorProto& training = *model.mutable_graph()->add_initializer();
  training.set_name("training");
  training.set_data_type(TensorProto::BOOL);
  training.add_int32_data(1);
  add_node(model, "Dropout", {"x", "ratio", "training"}, {"y"}, "drop");
  const std::string message = test::invalid_argument_message([&] {
    parse(model).run(Device::cpu(), {TensorData(std::vector<float>{1, 2, 3, 4}, Shape{4})});
  });
  EXPECT_NE(message.find("node 'drop' (Dropout): ratio 1 is not in [0, 1)"), std::string::npos)
      << message;
}

/// A model decoding its u8 input "x" (of size bytes) with ImageDecoder, in pixel_format RGB.
::onnx::ModelProto image_model(std::size_t size) {
  ::onnx::ModelProto model = model_with_input({static_cast<int64_t>(size)}, 20);
  model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      TensorProto::UINT8);
  model.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      TensorProto::UINT8);
  add_node(model, "ImageDecoder", {"x"}, {"y"}, "decode");
  return model;
}

TensorData bytes_of(const std::string& text) {
  std::vector<uint8_t> values(text.begin(), text.end());
  return TensorData(values, Shape{static_cast<int64_t>(values.size())});
}

TEST(OnnxImport, ImageDecoderReadsBmpAndPnmPixelsAsStored) {
  // A 2 x 2 BMP, 24-bit, bottom-up rows padded to 8 bytes, pixels B, G, R; and the same image
  // as a PPM (P6) with a comment: the pixels by hand, top row first.
  std::string bmp = "BM" + std::string(8, '\0') + std::string("\x36\0\0\0", 4) +
                    std::string("\x28\0\0\0\x02\0\0\0\x02\0\0\0\x01\0\x18\0", 16) +
                    std::string(24, '\0');
  bmp += std::string("\x03\x02\x01\x06\x05\x04\0\0\x09\x08\x07\x0c\x0b\x0a\0\0", 16);
  const std::string ppm = std::string("P6 # two by two\n2 2\n255\n") +
                          std::string("\x07\x08\x09\x0a\x0b\x0c\x01\x02\x03\x04\x05\x06", 12);
  const TensorData expected(std::vector<uint8_t>{7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6},
                            Shape{2, 2, 3});
  for (const std::string& image : {bmp, ppm}) {
    const onnx::Model model = parse(image_model(image.size()));
    EXPECT_EQ(model.run(Device::cpu(), {bytes_of(image)}).at(0), expected) << image.substr(0, 2);
  }
}

TEST(OnnxImport, ImageDecoderReadsAJpeg2000CodestreamAsItsJp2File) {
  // The fuzz seeds image.jp2 (the node test's, which decodes as Pillow does) and image.j2k, its
  // codestream box alone: the same codestream, so the same pixels.
  const std::string dir = test::source_dir() + "/tests/fuzz/corpus/image_decode/";
  std::vector<TensorData> images;
  for (const char* name : {"image.jp2", "image.j2k"}) {
    std::ifstream file(dir + name, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(file), {}};
    ASSERT_GT(bytes.size(), 100u) << dir + name;
    images.push_back(parse(image_model(bytes.size())).run(Device::cpu(), {bytes_of(bytes)}).at(0));
  }
  EXPECT_EQ(images[0].shape(), (Shape{32, 32, 3}));
  EXPECT_EQ(images[1], images[0]);
}

/// value as bytes little-endian (big-endian where big), of width bytes.
std::string endian(uint32_t value, int width, bool big = false) {
  std::string bytes;
  for (int i = 0; i < width; ++i)
    bytes += static_cast<char>(value >> (8 * (big ? width - 1 - i : i)) & 0xFF);
  return bytes;
}

/// A little-endian TIFF header and directory (TIFF 6.0, section 2) of an 8-bit RGB image of
/// width x height in one strip, no pixels following.
std::string tiff_of_size(uint32_t width, uint32_t height) {
  const std::pair<uint16_t, uint32_t> fields[] = {
      {256, width}, {257, height}, {258, 8}, {262, 2}, {273, 8}, {277, 3}, {278, height}, {279, 1}};
  std::string tiff = std::string("II*\0", 4) + endian(8, 4) + endian(8, 2);
  for (const auto& [tag, value] : fields)  // each a LONG (type 4) of count 1
    tiff += endian(tag, 2) + endian(4, 2) + endian(1, 4) + endian(value, 4);
  return tiff + endian(0, 4);
}

/// A lossless WebP of width x height: its VP8L header only (the WebP container and lossless
/// bitstream specification: signature 0x2F, then width - 1 and height - 1 in 14 bits each).
std::string webp_of_size(uint32_t width, uint32_t height) {
  const std::string vp8l = "\x2F" + endian((width - 1) | (height - 1) << 14, 4);
  return "RIFF" + endian(4 + 8 + 6, 4) + "WEBPVP8L" + endian(5, 4) + vp8l + '\0';
}

/// A JPEG 2000 codestream of width x height, 3 8-bit components, whose main header (ITU-T
/// T.800 annex A: SOC, SIZ, COD, QCD) ends at its first tile's SOT, no data following.
std::string jpeg2000_of_size(uint32_t width, uint32_t height) {
  std::string siz = "\xFF\x51" + endian(38 + 9, 2, true) + endian(0, 2, true);
  for (uint32_t value : {width, height, 0u, 0u, width, height, 0u, 0u})
    siz += endian(value, 4, true);
  siz += endian(3, 2, true) + std::string("\x07\x01\x01\x07\x01\x01\x07\x01\x01", 9);
  const std::string cod = "\xFF\x52" + endian(12, 2, true) + std::string("\0\0\0\x01\0", 5) +
                          std::string("\x05\x04\x04\0\x01", 5);
  const std::string qcd = "\xFF\x5C" + endian(19, 2, true) + "\x40" + std::string(16, '\x48');
  const std::string sot = "\xFF\x90" + endian(10, 2, true) + endian(0, 2, true) +
                          endian(0, 4, true) + std::string("\0\x01", 2);
  return "\xFF\x4F" + siz + cod + qcd + sot + "\xFF\xD9";
}

TEST(OnnxImport, ImageDecoderRefusesMalformedImagesByName) {
  using namespace std::string_literals;
  const std::string header =
      "BM" + std::string(8, '\0') + std::string("\x36\0\0\0", 4) + std::string("\x28\0\0\0", 4);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"BM\x01\x02", "BMP: 4 bytes, no header"},
      {header + std::string("\x00\x00\x01\x00\x00\x00\x01\x00\x01\0\x18\0", 12) +
           std::string(24, '\0'),
       "BMP: an image of 65536 x 65536 pixels"},
      {header + std::string("\x02\0\0\0\x02\0\0\0\x01\0\x18\0", 12) + std::string(24, '\0'),
       "do not hold its pixels"},
      {"P6\n2 2\n65535\n", "PNM of maxval 65535"},
      {"P6\n99999 99999\n255\n", "PNM: an image of 99999 x 99999 pixels"},
      {"P5\n2", "PNM: the header ends before its numbers"},
      {"\xFF\xD8\xFF\xE0 not a jpeg", "JPEG: "},
      {"\x89PNG\r\n\x1A\n truncated", "PNG: "},
      {"II*\0\x08\0\0\0\x01"s, "TIFF: "},
      {tiff_of_size(65536, 65536), "TIFF: an image of 65536 x 65536 pixels"},
      {"RIFF\x10\0\0\0WEBPVP8 \x04\0\0\0"s, "WebP: libwebp cannot read its header"},
      {webp_of_size(16384, 16384), "WebP: an image of 16384 x 16384 pixels"},
      {"\xFF\x4F\xFF\x51\0\x29"s, "JPEG 2000: "},
      {jpeg2000_of_size(65536, 65536), "JPEG 2000: an image of 65536 x 65536 pixels"},
      {"GIF89a", "not a JPEG, PNG, BMP, PNM, TIFF, WebP or JPEG 2000"},
  };
  for (const auto& [image, why] : cases) {
    const std::string message = test::invalid_argument_message(
        [&] { parse(image_model(image.size())).run(Device::cpu(), {bytes_of(image)}); });
    EXPECT_NE(message.find("ImageDecoder: "), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace ember
