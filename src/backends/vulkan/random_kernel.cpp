#include "backends/vulkan/random_kernel.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/shader/random_passes.h"

namespace ember::vulkan {
namespace {

/// ir/philox.h's rounds (umulExtended: the high and low words of each product), ir/random.h's
/// log_f32, sin_turns_f32 and cos_turns_f32 in fused multiply-adds, then each element's draw.
std::string source() {
  const shader::RandomFormulas r{
      [](uint32_t bits) { return "uintBitsToFloat(" + codegen::hex_word(bits) + ")"; }};
  std::string text = R"(#version 450
// ember's vulkan random tensors (src/backends/vulkan/random_kernel.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float y[]; };
uvec4 philox(uvec4 c, uint k0, uint k1) {
  for (int turn = 0; turn < 10; ++turn) {
    if (turn > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
  }
  return c;
}
float uniform01(uint word) { return float(word >> 8) * uintBitsToFloat(0x33800000u); }
float log_f32(float x) {
  int e;
  float m = frexp(x, e);
  if (m < )" + r.sqrt_half() +
                     R"() {
    m *= 2.0;
    e -= 1;
  }
  precise float f = m - 1.0;
  precise float log_m = fma(f * f, )" +
                     r.log_polynomial("f") + R"(, f);
  precise float fe = float(e);
  precise float value = fma(fe, )" +
                     r.ln2_high() + ", fma(fe, " + r.ln2_low() + R"(, log_m));
  return value;
}
float sin_turns_f32(float t, float x) {
  precise float tail = fma(x, )" +
                     r.sin_polynomial("x") + ", " + r.two_pi_low() + R"();
  precise float value = fma(t, )" +
                     r.two_pi_high() + R"(, t * tail);
  return value;
}
float cos_turns_f32(float u) {
  precise float quarters = roundEven(4.0 * u);
  precise float t = u - 0.25 * quarters;
  precise float x = t * t;
  const int quadrant = int(quarters) & 3;
  precise float value = quadrant % 2 == 0 ? fma(x, )" +
                     r.cos_polynomial("x") + R"(, 1.0) : sin_turns_f32(t, x);
  return quadrant == 1 || quadrant == 2 ? -value : value;
}
void main() {
  const uint n = p[0];
  const uint kind = p[3];
  const float scale = uintBitsToFloat(p[4]);
  const float shift = uintBitsToFloat(p[5]);
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) {
    const uvec4 c = philox(uvec4(i, 0u, 0u, 0u), p[1], p[2]);
    const float u = uniform01(c.x);
    precise float v = u;
    if (kind == 1u) {
      v = fma(scale, u, shift);
    } else if (kind == 2u) {
      precise float radius = sqrt(-2.0 * log_f32(1.0 - u));
      v = fma(scale, radius * cos_turns_f32(uniform01(c.z)), shift);
    } else if (kind == 3u) {
      v = (c.x >> 8) < p[6] ? 1.0 : 0.0;
    }
    y[i] = v;
  }
}
)";
  return text;
}

}  // namespace

RandomKernel::RandomKernel(const Features& features, KernelCache& kernels, CommandStream& stream)
    : max_range_(features.max_storage_range),
      max_groups_(features.max_groups_x),
      kernels_(kernels),
      stream_(stream) {}

bool RandomKernel::takes(const ir::Random& op) const {
  return shader::random_kernels_take(op, max_range_);
}

void RandomKernel::run(const ir::Random& op, const BufferRange& out) {
  const std::vector<uint32_t> words = shader::random_parameters(op);
  if (words[0] == 0) return;
  const uint64_t groups = (uint64_t{words[0]} + 255) / 256;
  static const std::string text = source();
  stream_.dispatch(kernels_.kernel(text, 1), std::as_bytes(std::span(words)), {&out, 1},
                   static_cast<uint32_t>(std::min<uint64_t>(groups, max_groups_)));
}

}  // namespace ember::vulkan
