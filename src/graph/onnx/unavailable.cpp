// ONNX export and import in a build without libonnx-dev or without the capture backend: each
// function says what the build lacks.
#include "ember/error.h"
#include "ember/onnx.h"

namespace ember::onnx {
namespace {

[[noreturn]] void fail_unavailable(const char* function) {
  throw ConfigError(std::string("[") + function +
                    "] this ember was built without ONNX, which needs the capture backend "
                    "(EMBER_BACKEND_CAPTURE, with Cap'n Proto), libonnx-dev and libprotobuf-dev "
                    "(scripts/install-deps): install them and configure again");
}

}  // namespace

std::string to_onnx(const Graph&, const ExportOptions&) {
  fail_unavailable("onnx::to_onnx");
}

void save_onnx(const Graph&, const std::filesystem::path&, const ExportOptions&) {
  fail_unavailable("onnx::save_onnx");
}

TensorData parse_tensor(std::span<const std::byte>) {
  fail_unavailable("onnx::parse_tensor");
}

TensorData load_tensor(const std::filesystem::path&) {
  fail_unavailable("onnx::load_tensor");
}

Model Model::parse(std::span<const std::byte>) {
  fail_unavailable("onnx::Model");
}

Model Model::load(const std::filesystem::path&) {
  fail_unavailable("onnx::Model");
}

// No Model can be made in this build: its other members are never reached.
int64_t Model::opset() const {
  fail_unavailable("onnx::Model");
}

std::vector<ValueInfo> Model::inputs() const {
  fail_unavailable("onnx::Model");
}

std::vector<ValueInfo> Model::outputs() const {
  fail_unavailable("onnx::Model");
}

const std::vector<record::NamedData>& Model::initializers() const {
  fail_unavailable("onnx::Model");
}

std::vector<OpCount> Model::op_counts() const {
  fail_unavailable("onnx::Model");
}

Graph Model::to_graph(const std::vector<Shape>&,
                      const std::vector<std::optional<TensorData>>&) const {
  fail_unavailable("onnx::Model");
}

std::vector<TensorData> Model::run(const Device&, const std::vector<TensorData>&) const {
  fail_unavailable("onnx::Model");
}

}  // namespace ember::onnx
