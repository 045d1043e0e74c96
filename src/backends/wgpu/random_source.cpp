#include "backends/wgpu/random_source.h"

#include <string>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/random_passes.h"
#include "backends/shader/random_text.h"

namespace ember::wgpu {
namespace {

/// wide(a, b): WGSL has no 32 x 32 -> 64 bit product, so the high word is assembled from 16-bit
/// halves.
constexpr const char* kWide = R"(// (high, low) words of a b.
fn wide(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let cross0 = a0 * b1;
  let cross1 = a1 * b0;
  let middle = ((a0 * b0) >> 16u) + (cross0 & 0xffffu) + (cross1 & 0xffffu);
  return vec2<u32>(a1 * b1 + (cross0 >> 16u) + (cross1 >> 16u) + (middle >> 16u), a * b);
}
)";

/// The WGSL spelling of the random kernel (shader/random_text.h): wide() returns a product's high
/// and low words; philox copies its parameters, constants in WGSL, into variables.
class WgslRandom final : public shader::WgslKernelSyntax<shader::RandomSyntax> {
 public:
  std::string header() const override {
    return parameters_header("ember's wgpu random tensors (src/backends/wgpu/random_source.cpp)");
  }
  std::string_view block_type() const override { return "vec4<u32>"; }
  std::string product_function() const override { return kWide; }
  std::string philox_head() const override {
    return function(block_type(), "philox",
                    {{block_type(), "counter"}, {word_type(), "key0"}, {word_type(), "key1"}}) +
           " {\n  " + variable(block_type(), "c", "counter") + ";\n  " +
           variable(word_type(), "k0", "key0") + ";\n  " + variable(word_type(), "k1", "key1") +
           ";\n";
  }
  std::string product_words() const override { return {}; }
  std::string product(int index, const std::string& multiplier,
                      const std::string& word) const override {
    return constant("vec2<u32>", product_name(index), "wide(" + multiplier + ", " + word + ")");
  }
  std::string high(int index) const override { return product_name(index) + ".x"; }
  std::string low(int index) const override { return product_name(index) + ".y"; }
  std::string shift_count(int bits) const override { return std::to_string(bits) + "u"; }
  std::string entry() const override { return invocations_entry(shader::kRandomWorkgroup); }
  std::string select_over_lines(const std::string& if_false, const std::string& if_true,
                                const std::string& condition, size_t column) const override {
    return "select(" + if_false + ", " + if_true + ",\n" +
           std::string(column + std::string_view("select(").size(), ' ') + condition + ")";
  }

 private:
  /// The constant holding product number index.
  static std::string product_name(int index) { return "p" + std::to_string(index); }
};

}  // namespace

std::string random_source() {
  return shader::random_source_of(WgslRandom());
}

}  // namespace ember::wgpu
