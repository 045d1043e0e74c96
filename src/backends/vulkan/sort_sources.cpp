#include "backends/vulkan/sort_sources.h"

#include <cstdint>
#include <string>

#include "backends/shader/sort_passes.h"

namespace ember::vulkan {
// The kernels' text, named apart from the other kernels' helpers (unity builds join the files).
namespace sort_text {

/// key(bits): the 32-bit word as the key's type; is_nan(bits) tests the word itself, so that no
/// compiler assumption about NaN comparisons can change the order.
std::string key_functions(DType dtype) {
  if (dtype == DType::F32)
    return "float key(uint bits) { return uintBitsToFloat(bits); }\n"
           "bool is_nan(uint bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }\n";
  return std::string(dtype == DType::I32 ? "int key(uint bits) { return int(bits); }\n"
                                         : "uint key(uint bits) { return bits; }\n") +
         "bool is_nan(uint bits) { return false; }\n";
}

/// The sources' head: the parameters, then the buffers (binding 1 on).
std::string head(const std::string& buffers) {
  return R"(#version 450
// ember's vulkan sort (src/backends/vulkan/sort_sources.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
)" + buffers;
}

/// Whether the element (a, at) comes before (b, bt) in the sorted lane (position >= n: padding,
/// which sorts last).
std::string before_function(DType dtype) {
  return key_functions(dtype) +
         R"(bool before(uint a, uint at, uint b, uint bt, uint n, bool descending) {
  if (at >= n) return false;
  if (bt >= n) return true;
  const bool a_nan = is_nan(a);
  const bool b_nan = is_nan(b);
  const bool less = !a_nan && (b_nan || key(a) < key(b));
  const bool greater = !b_nan && (a_nan || key(a) > key(b));
  if (descending ? greater : less) return true;
  if (descending ? less : greater) return false;
  return at < bt;
}
)";
}

/// A workgroup's sort of each block (a whole lane: one block) of p[3] elements (padded), p[7]
/// blocks a lane, then write, the loop writing the sorted block's element t (t < padded, below n
/// in the lane: origin + t).
std::string network(DType dtype, const std::string& write) {
  return before_function(dtype) + R"(shared uint words[2048];
shared uint where_[2048];
void main() {
  const uint lanes = p[0];
  const uint n = p[1];
  const uint inner = p[2];
  const uint padded = p[3];
  const bool descending = p[4] != 0u;
  const bool wide = p[5] != 0u;
  const uint blocks = p[7];
  const uint local = gl_LocalInvocationID.x;
  for (uint item = gl_WorkGroupID.x; item < lanes * blocks; item += gl_NumWorkGroups.x) {
    const uint lane = item / blocks;
    const uint origin = (item - lane * blocks) * padded;
    const uint row = lane / inner;
    const uint base = row * n * inner + (lane - row * inner);
    for (uint t = local; t < padded; t += 256u) {
      where_[t] = origin + t;
      words[t] = origin + t < n ? x[base + (origin + t) * inner] : 0u;
    }
    barrier();
    for (uint k = 2u; k <= padded; k *= 2u) {
      for (uint j = k / 2u; j > 0u; j /= 2u) {
        for (uint t = local; t < padded; t += 256u) {
          const uint u = t ^ j;
          if (u > t) {
            const bool swap = (t & k) == 0u
                ? before(words[u], where_[u], words[t], where_[t], n, descending)
                : before(words[t], where_[t], words[u], where_[u], n, descending);
            if (swap) {
              const uint word = words[t];
              words[t] = words[u];
              words[u] = word;
              const uint at = where_[t];
              where_[t] = where_[u];
              where_[u] = at;
            }
          }
        }
        barrier();
      }
    }
    for (uint t = local; t < padded && origin + t < n; t += 256u) {
)" + write +
         R"(    }
    barrier();
  }
}
)";
}

/// A lane of at most 2048 elements, sorted by one workgroup into values (read from x again:
/// every bit) and positions.
std::string whole_source(DType dtype) {
  return head(R"(layout(std430, set = 0, binding = 1) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Values { uint values[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Positions { uint positions[]; };
)") + network(dtype, std::string(R"(      const uint dest = base + t * inner;
      const uint at = where_[t];
      values[dest] = x[base + at * inner];
)") + shader::kWriteSortPosition);
}

/// Each block of a long lane sorted by one workgroup into (key, position) pairs, the lane's
/// pairs contiguous.
std::string blocks_source(DType dtype) {
  return head(R"(layout(std430, set = 0, binding = 1) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Pairs { uint pairs[]; };
)") + network(dtype, R"(      const uint to = 2u * (lane * n + origin + t);
      pairs[to] = words[t];
      pairs[to + 1u] = where_[t];
)");
}

/// Neighbouring sorted runs of p[6] pairs merged: each pair goes to its index in its run plus
/// the count of the other run's pairs before it (a binary search).
std::string merge_source(DType dtype) {
  return head(R"(layout(std430, set = 0, binding = 1) readonly buffer From { uint from_[]; };
layout(std430, set = 0, binding = 2) writeonly buffer To { uint to_[]; };
)") + before_function(dtype) +
         R"(void main() {
  const uint n = p[1];
  const bool descending = p[4] != 0u;
  const uint width = p[6];
  const uint total = p[0] * n;
  for (uint g = gl_GlobalInvocationID.x; g < total; g += gl_NumWorkGroups.x * 256u) {
    const uint lane_first = g - g % n;
    const uint i = g - lane_first;
    const uint start = i - i % (2u * width);
    const uint mid = start + min(width, n - start);
    const uint stop = start + min(2u * width, n - start);
    const bool in_first = i < mid;
    const uint word = from_[2u * g];
    const uint at = from_[2u * g + 1u];
    uint low = in_first ? mid : start;
    const uint other = low;
    uint high = in_first ? stop : mid;
    while (low < high) {
      const uint middle = low + (high - low) / 2u;
      const uint m = 2u * (lane_first + middle);
      if (before(from_[m], from_[m + 1u], word, at, n, descending)) low = middle + 1u;
      else high = middle;
    }
    const uint dest = 2u * (lane_first + start + (i - (in_first ? start : mid)) + (low - other));
    to_[dest] = word;
    to_[dest + 1u] = at;
  }
}
)";
}

/// The sorted pairs of long lanes into values (the keys: x's words) and positions.
std::string gather_source() {
  return head(R"(layout(std430, set = 0, binding = 1) readonly buffer Pairs { uint pairs[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Values { uint values[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Positions { uint positions[]; };
)") + R"(void main() {
  const uint n = p[1];
  const uint inner = p[2];
  const bool wide = p[5] != 0u;
  const uint total = p[0] * n;
  for (uint g = gl_GlobalInvocationID.x; g < total; g += gl_NumWorkGroups.x * 256u) {
    const uint lane = g / n;
    const uint row = lane / inner;
    const uint dest = row * n * inner + (lane - row * inner) + (g - lane * n) * inner;
    const uint at = pairs[2u * g + 1u];
    values[dest] = pairs[2u * g];
)" + shader::kWriteSortPosition +
         "  }\n}\n";
}

}  // namespace sort_text

shader::SortSources sort_sources(DType dtype) {
  return {sort_text::whole_source(dtype), sort_text::blocks_source(dtype),
          sort_text::merge_source(dtype), sort_text::gather_source()};
}

}  // namespace ember::vulkan
