// Parses the graph text format. The text is outside bytes (a file): every number, reference,
// name and op is checked before use, nothing is allocated by a size the text states until the
// text itself holds that many bytes, and each op passes its shape and dtype rule (ir::infer)
// against the metadata it declares. tests/fuzz/graph_text_fuzz.cpp runs it on random bytes.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/tensor_bytes.h"
#include "ember/error.h"
#include "graph/text_format.h"
#include "ir/rules.h"
#include "wire/op_text.h"

namespace ember::detail {
namespace {

/// One line being read, left to right.
class LineReader {
 public:
  LineReader(std::string_view line, std::size_t number) : rest_(line), number_(number) {}

  template <typename... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    throw InvalidArgument(ir::rules::concat("[Graph::from_text] line ", number_, ": ", parts...));
  }

  bool done() const { return rest_.empty(); }
  std::string_view rest() const { return rest_; }

  bool consume(std::string_view token) {
    if (!rest_.starts_with(token)) return false;
    rest_.remove_prefix(token.size());
    return true;
  }
  void expect(std::string_view token) {
    if (!consume(token)) fail("expected '", token, "' at '", excerpt(), "'");
  }

  /// The characters up to (not including) the first of stops, or the line's end.
  std::string_view word(std::string_view stops) {
    const std::size_t end = std::min(rest_.find_first_of(stops), rest_.size());
    const std::string_view word = rest_.substr(0, end);
    rest_.remove_prefix(end);
    return word;
  }

  template <typename T>
  T integer() {
    T value{};
    const auto [end, error] = std::from_chars(rest_.data(), rest_.data() + rest_.size(), value);
    if (error != std::errc{}) fail("expected a number at '", excerpt(), "'");
    rest_.remove_prefix(static_cast<std::size_t>(end - rest_.data()));
    return value;
  }

  std::string quoted() {
    expect("\"");
    const std::size_t end = rest_.find('"');
    if (end == std::string_view::npos) fail("a name without its closing '\"'");
    std::string name(rest_.substr(0, end));
    rest_.remove_prefix(end + 1);
    return name;
  }

  std::string_view excerpt() const { return rest_.substr(0, 40); }

 private:
  std::string_view rest_;
  std::size_t number_;
};

/// Reads the graph's lines into a GraphImpl, checking each against what came before.
class GraphReader {
 public:
  void read_line(LineReader& line) {
    if (line.consume("output ")) return read_output(line);
    line.expect("%");
    if (line.integer<std::size_t>() != graph_.nodes.size())
      line.fail("expected node %", graph_.nodes.size(), " (nodes are numbered in order)");
    line.expect(" = ");
    GraphNode node;
    if (line.consume("input ")) {
      read_input(line, node);
    } else if (line.consume("constant ")) {
      read_constant(line, node);
    } else {
      read_op(line, node);
    }
    if (!line.done()) line.fail("unexpected '", line.excerpt(), "' at the line's end");
    graph_.nodes.push_back(std::move(node));
  }

  GraphImpl take() && { return std::move(graph_); }

 private:
  ir::TensorMeta read_meta(LineReader& line) {
    const std::string_view name = line.word(" ");
    const std::optional<DType> dtype = dtype_from_name(name);
    if (!dtype) line.fail("unknown dtype '", name, "'");
    line.expect(" [");
    std::vector<int64_t> dims;
    while (!line.consume("]")) {
      if (!dims.empty()) line.expect(", ");
      const auto dim = line.integer<int64_t>();
      if (dim < 0) line.fail("negative dim ", dim);
      dims.push_back(dim);
    }
    ir::TensorMeta meta{Shape(std::move(dims)), *dtype};
    if (!checked_tensor_bytes(meta.shape, meta.dtype))
      line.fail("shape ", meta.shape, " of ", meta.dtype, ' ', kTooLargeForInt64);
    return meta;
  }

  ValueRef read_ref(LineReader& line) {
    line.expect("%");
    ValueRef ref{line.integer<std::size_t>(), 0};
    if (line.consume(".")) ref.output = line.integer<uint32_t>();
    if (ref.node >= graph_.nodes.size()) line.fail("%", ref.node, " is not an earlier node");
    if (ref.output >= graph_.nodes[ref.node].outputs.size())
      line.fail("%", ref.node, " has no output ", ref.output);
    return ref;
  }

  std::string read_name(LineReader& line) {
    std::string name = line.quoted();
    try {
      check_graph_name(name, "Graph::from_text");
    } catch (const InvalidArgument& e) {
      line.fail(e.what());
    }
    return name;
  }

  void read_input(LineReader& line, GraphNode& node) {
    node.kind = GraphNode::Kind::Input;
    node.name = read_name(line);
    line.expect(" ");
    node.outputs.push_back(read_meta(line));
  }

  void read_constant(LineReader& line, GraphNode& node) {
    node.kind = GraphNode::Kind::Constant;
    ir::TensorMeta meta = read_meta(line);
    // The size was checked to fit int64; the hex digits must be there before anything is made.
    const auto bytes = static_cast<std::size_t>(*checked_tensor_bytes(meta.shape, meta.dtype));
    if (bytes > 0) line.expect(" ");
    const std::string_view hex = line.word(" ");
    if (hex.size() / 2 != bytes || hex.size() % 2 != 0)
      line.fail("constant of ", bytes, " bytes written with ", hex.size(), " hex digits");
    std::vector<std::byte> data(bytes);
    for (std::size_t i = 0; i < bytes; ++i)
      data[i] = std::byte{
          static_cast<uint8_t>(hex_digit(line, hex[2 * i]) * 16 + hex_digit(line, hex[2 * i + 1]))};
    try {
      node.data.emplace(std::move(data), meta.shape, meta.dtype);
    } catch (const InvalidArgument& e) {
      line.fail(e.what());
    }
    node.outputs.push_back(std::move(meta));
  }

  static int hex_digit(const LineReader& line, char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    line.fail("'", c, "' is not a lowercase hex digit");
  }

  void read_op(LineReader& line, GraphNode& node) {
    node.kind = GraphNode::Kind::Op;
    const std::string_view name = line.word("( ");
    line.expect("(");
    while (!line.consume(")")) {
      if (!node.inputs.empty()) line.expect(", ");
      node.inputs.push_back(read_ref(line));
    }
    line.expect(" ");
    do {
      node.outputs.push_back(read_meta(line));
    } while (line.consume(", "));
    line.expect(" ");
    try {
      node.op = wire::op_from_text(line.word(""));
      check_op(*node.op, name, node);
    } catch (const InvalidArgument& e) {
      line.fail(e.what());
    }
  }

  /// The op must be the one its name says, and its rule must give the outputs the line declares.
  void check_op(const ir::Op& op, std::string_view name, const GraphNode& node) const {
    if (ir::name(op) != name) {
      throw InvalidArgument(
          ir::rules::concat("the op text describes '", ir::name(op), "', not '", name, "'"));
    }
    std::vector<ir::TensorMeta> inputs;
    for (const ValueRef& ref : node.inputs)
      inputs.push_back(graph_.meta(ref));
    const ir::OutputMetas outputs = ir::infer(op, inputs);
    bool same = outputs.size() == node.outputs.size();
    for (std::size_t i = 0; same && i < outputs.size(); ++i)
      same = outputs[i] == node.outputs[i];
    if (!same) throw InvalidArgument("the outputs declared are not those the op's rule gives");
  }

  void read_output(LineReader& line) {
    GraphOutput output;
    output.name = read_name(line);
    line.expect(" ");
    output.value = read_ref(line);
    if (!line.done()) line.fail("unexpected '", line.excerpt(), "' at the line's end");
    graph_.outputs.push_back(std::move(output));
  }

  GraphImpl graph_;
};

}  // namespace

void check_graph_name(std::string_view name, std::string_view op) {
  if (name.empty()) throw InvalidArgument(ir::rules::concat("[", op, "] an empty name"));
  for (char c : name) {
    if (c < ' ' || c > '~' || c == '"' || c == '\\') {
      throw InvalidArgument(ir::rules::concat("[", op, "] name '", name,
                                              "' holds a character other than printable ASCII "
                                              "without '\"' and '\\'"));
    }
  }
}

GraphImpl graph_from_text(std::string_view text) {
  GraphReader reader;
  std::size_t number = 0;
  bool header = false;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++number;
    if (!header) {
      if (line != kGraphHeader) {
        throw InvalidArgument(ir::rules::concat("[Graph::from_text] line 1: expected '",
                                                kGraphHeader, "', got '", line.substr(0, 40), "'"));
      }
      header = true;
      continue;
    }
    if (line.empty()) continue;
    LineReader reader_of_line(line, number);
    reader.read_line(reader_of_line);
  }
  if (!header) throw InvalidArgument("[Graph::from_text] empty text: no graph header");
  return std::move(reader).take();
}

}  // namespace ember::detail
