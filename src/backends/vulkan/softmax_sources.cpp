#include "backends/vulkan/softmax_sources.h"

#include <string>

namespace ember::vulkan {
namespace {

/// The bindings and a lane's share (elements start, start + step, ... of its n) of its maximum
/// (a NaN wins, as in ndarray's lane_max), of its sum of exp(x - m), and of its writes.
constexpr const char* kSoftmaxCommon = R"(#version 450
// ember's vulkan softmax (src/backends/vulkan/softmax_sources.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };
float larger(float a, float b) { return isnan(a) || (!isnan(b) && a >= b) ? a : b; }
float lane_max(uint first, uint inner, uint n, uint start, uint step) {
  float m = uintBitsToFloat(0xff800000u);
  for (uint k = start; k < n; k += step) m = larger(m, x[first + k * inner]);
  return m;
}
float lane_sum(uint first, uint inner, uint n, uint start, uint step, float m) {
  float s = 0.0;
  for (uint k = start; k < n; k += step) s += exp(x[first + k * inner] - m);
  return s;
}
void lane_write(uint first, uint inner, uint n, uint start, uint step, float m, float sum) {
  const float log_sum = log(sum);
  for (uint k = start; k < n; k += step) {
    const float shifted = x[first + k * inner] - m;
    y[first + k * inner] = p[3] != 0u ? shifted - log_sum : exp(shifted) / sum;
  }
}
uint first_of(uint lane, uint n, uint inner) {
  const uint row = lane / inner;
  return row * n * inner + (lane - row * inner);
}
)";

/// Short lanes: one invocation a lane, in order. (Apart from the workgroup kernel: lavapipe runs
/// a kernel with barriers far slower, even where none is reached.)
constexpr const char* kSoftmaxShortMain = R"(void main() {
  const uint lanes = p[0];
  const uint n = p[1];
  const uint inner = p[2];
  for (uint lane = gl_GlobalInvocationID.x; lane < lanes; lane += gl_NumWorkGroups.x * 256u) {
    const uint first = first_of(lane, n, inner);
    const float m = lane_max(first, inner, n, 0u, 1u);
    lane_write(first, inner, n, 0u, 1u, m, lane_sum(first, inner, n, 0u, 1u, m));
  }
}
)";

/// One workgroup a lane (looping over lanes past the dispatch): each invocation's share of the
/// maximum and the sum, then trees over part[].
constexpr const char* kSoftmaxWorkgroupMain = R"(shared float part[256];
// The tree over part[]: its combination by larger (max) or addition (sum), in every invocation.
float tree(bool max_op) {
  const uint id = gl_LocalInvocationID.x;
  barrier();
  for (uint half_size = 128u; half_size > 0u; half_size >>= 1u) {
    if (id < half_size)
      part[id] = max_op ? larger(part[id], part[id + half_size]) : part[id] + part[id + half_size];
    barrier();
  }
  const float result = part[0];
  barrier();
  return result;
}
void main() {
  const uint lanes = p[0];
  const uint n = p[1];
  const uint inner = p[2];
  const uint id = gl_LocalInvocationID.x;
  for (uint lane = gl_WorkGroupID.x; lane < lanes; lane += gl_NumWorkGroups.x) {
    const uint first = first_of(lane, n, inner);
    part[id] = lane_max(first, inner, n, id, 256u);
    const float m = tree(true);
    part[id] = lane_sum(first, inner, n, id, 256u, m);
    lane_write(first, inner, n, id, 256u, m, tree(false));
  }
}
)";

}  // namespace

shader::SoftmaxSources softmax_sources() {
  return {std::string(kSoftmaxCommon) + kSoftmaxShortMain,
          std::string(kSoftmaxCommon) + kSoftmaxWorkgroupMain};
}

}  // namespace ember::vulkan
