// ONNX export in a build without libonnx-dev: each function says what the build lacks.
#include "ember/error.h"
#include "ember/onnx.h"

namespace ember::onnx {
namespace {

[[noreturn]] void fail_unavailable(const char* function) {
  throw ConfigError(std::string("[") + function +
                    "] this ember was built without ONNX: install libonnx-dev and "
                    "libprotobuf-dev (scripts/install-deps) and configure again");
}

}  // namespace

std::string to_onnx(const Graph&, const ExportOptions&) {
  fail_unavailable("onnx::to_onnx");
}

void save_onnx(const Graph&, const std::filesystem::path&, const ExportOptions&) {
  fail_unavailable("onnx::save_onnx");
}

}  // namespace ember::onnx
