#include "backends/vulkan/random_source.h"

#include <string>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/random_passes.h"
#include "backends/shader/random_text.h"

namespace ember::vulkan {
namespace {

/// The GLSL spelling of the random kernel (shader/random_text.h): umulExtended writes a
/// product's high and low words into variables declared first; philox steps its parameters.
class GlslRandom final : public shader::GlslKernelSyntax<shader::RandomSyntax> {
 public:
  std::string header() const override {
    return parameters_header(
        "ember's vulkan random tensors (src/backends/vulkan/random_source.cpp)",
        shader::kRandomWorkgroup);
  }
  std::string_view block_type() const override { return "uvec4"; }
  std::string product_function() const override { return {}; }
  std::string philox_head() const override {
    return function(block_type(), "philox",
                    {{block_type(), "c"}, {word_type(), "k0"}, {word_type(), "k1"}}) +
           " {\n";
  }
  std::string product_words() const override { return "    uint hi0, lo0, hi1, lo1;\n"; }
  std::string product(int index, const std::string& multiplier,
                      const std::string& word) const override {
    return "umulExtended(" + multiplier + ", " + word + ", " + high(index) + ", " + low(index) +
           ")";
  }
  std::string high(int index) const override { return "hi" + std::to_string(index); }
  std::string low(int index) const override { return "lo" + std::to_string(index); }
  std::string shift_count(int bits) const override { return std::to_string(bits); }
  std::string entry() const override { return "void main() {\n"; }
  std::string select_over_lines(const std::string& if_false, const std::string& if_true,
                                const std::string& condition, size_t column) const override {
    return condition + " ? " + if_true + "\n" + std::string(column + condition.size() + 1, ' ') +
           ": " + if_false;
  }
};

}  // namespace

std::string random_source() {
  return shader::random_source_of(GlslRandom());
}

}  // namespace ember::vulkan
