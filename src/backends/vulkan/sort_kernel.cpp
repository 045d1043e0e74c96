#include "backends/vulkan/sort_kernel.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "backends/shader/sort_passes.h"

namespace ember::vulkan {
namespace {

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

/// The kernel for keys of dtype: each lane loaded padded to p[3] elements (position >= n marks
/// padding, which sorts last), the bitonic network's stages, then the sorted elements (read from
/// x again: every bit) and their positions.
std::string source(DType dtype) {
  std::string text = R"(#version 450
// ember's vulkan sort (src/backends/vulkan/sort_kernel.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Values { uint values[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Positions { uint positions[]; };
shared uint words[2048];
shared uint where_[2048];
)";
  text += key_functions(dtype);
  text += R"(// Whether the element (a, at) comes before (b, bt) in the sorted lane.
bool before(uint a, uint at, uint b, uint bt, uint n, bool descending) {
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
void main() {
  const uint lanes = p[0];
  const uint n = p[1];
  const uint inner = p[2];
  const uint padded = p[3];
  const bool descending = p[4] != 0u;
  const bool wide = p[5] != 0u;
  const uint first = gl_LocalInvocationID.x;
  for (uint lane = gl_WorkGroupID.x; lane < lanes; lane += gl_NumWorkGroups.x) {
    const uint row = lane / inner;
    const uint base = row * n * inner + (lane - row * inner);
    for (uint t = first; t < padded; t += 256u) {
      where_[t] = t;
      words[t] = t < n ? x[base + t * inner] : 0u;
    }
    barrier();
    for (uint k = 2u; k <= padded; k *= 2u) {
      for (uint j = k / 2u; j > 0u; j /= 2u) {
        for (uint t = first; t < padded; t += 256u) {
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
    for (uint t = first; t < n; t += 256u) {
      const uint dest = base + t * inner;
      values[dest] = x[base + where_[t] * inner];
      if (wide) {
        positions[2u * dest] = where_[t];
        positions[2u * dest + 1u] = 0u;
      } else {
        positions[dest] = where_[t];
      }
    }
    barrier();
  }
}
)";
  return text;
}

}  // namespace

SortKernel::SortKernel(const Features& features, KernelCache& kernels, CommandStream& stream)
    : max_range_(features.max_storage_range),
      max_groups_(features.max_groups_x),
      kernels_(kernels),
      stream_(stream) {}

bool SortKernel::takes(const ir::Sort& sort, const ir::TensorMeta& x) const {
  return shader::sort_kernels_take(sort, x, max_range_, max_groups_);
}

void SortKernel::run(const ir::Sort& sort, const BufferRange& x, const ir::TensorMeta& x_meta,
                     const BufferRange& values, const BufferRange& positions) {
  shader::record_sort(sort, x_meta, x, values, positions, source(x_meta.dtype), max_groups_,
                      [&](const std::string& text, std::span<const std::byte> words,
                          std::span<const BufferRange> tensors, uint32_t groups) {
                        stream_.dispatch(kernels_.kernel(text, 3), words, tensors, groups);
                      });
}

}  // namespace ember::vulkan
