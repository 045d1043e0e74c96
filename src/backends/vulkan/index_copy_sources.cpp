#include "backends/vulkan/index_copy_sources.h"

#include <string>
#include <vector>

namespace ember::vulkan {
// The kernels' text, named apart from the other kernels' helpers (unity builds join the files).
namespace index_copy_text {

using shader::Combine;
using shader::IndexCopyKey;

constexpr const char* kHeader = R"(#version 450
// ember's vulkan data movement (src/backends/vulkan/index_copy_sources.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
)";

/// A binding of 32-bit words named name.
std::string words(int binding, const std::string& name) {
  return "layout(std430, set = 0, binding = " + std::to_string(binding) + ") buffer B" + name +
         " { uint " + name + "[]; };\n";
}

/// E (an element's bits: uint, or uvec2 for 8 bytes) and load_<name>(i) for each buffer read.
std::string loads(uint32_t bytes, const std::vector<std::string>& names) {
  std::string text = bytes == 8 ? "#define E uvec2\n" : "#define E uint\n";
  for (const std::string& b : names) {
    text += "E load_" + b + "(uint i) { ";
    if (bytes == 8) {
      text += "return uvec2(" + b + "[2u * i], " + b + "[2u * i + 1u]); }\n";
    } else if (bytes == 4) {
      text += "return " + b + "[i]; }\n";
    } else {
      const std::string per = std::to_string(4 / bytes);
      const std::string bits = std::to_string(8 * bytes);
      text += "return bitfieldExtract(" + b + "[i / " + per + "u], int((i % " + per + "u) * " +
              bits + "u), " + bits + "); }\n";
    }
  }
  return text;
}

/// store(i, v) into the buffer named d: a 1- or 2-byte element by clearing and setting its bits
/// atomically (other invocations write the rest of its word).
std::string store(uint32_t bytes) {
  if (bytes == 8) return "void store(uint i, E v) { d[2u * i] = v.x; d[2u * i + 1u] = v.y; }\n";
  if (bytes == 4) return "void store(uint i, E v) { d[i] = v; }\n";
  const std::string per = std::to_string(4 / bytes);
  const std::string shift = "((i % " + per + "u) * " + std::to_string(8 * bytes) + "u)";
  const std::string mask = bytes == 1 ? "0xffu" : "0xffffu";
  return "void store(uint i, E v) {\n  atomicAnd(d[i / " + per + "u], ~(" + mask + " << " + shift +
         "));\n  atomicOr(d[i / " + per + "u], (v & " + mask + ") << " + shift + ");\n}\n";
}

/// index_at(i): the low word of index element i (checked in range before: the high word is 0).
std::string index_at(uint32_t index_bytes) {
  return "uint index_at(uint i) { return ix[i * " + std::to_string(index_bytes / 4) + "u]; }\n";
}

std::string copy_source(const IndexCopyKey& key) {
  std::string text = kHeader + words(1, "s") + words(2, "d");
  if (key.index_bytes != 0) text += words(3, "ix") + index_at(key.index_bytes);
  text += loads(key.element_bytes, {"s"}) + store(key.element_bytes);
  text += R"(void main() {
  const uint n = p[0];
  for (uint e = gl_GlobalInvocationID.x; e < n; e += gl_NumWorkGroups.x * 256u) {
    uint rest = e;
    uint read_at = p[2];
    uint write_at = p[3];
    uint at = 0u;
    for (uint k = p[1]; k > 0u; --k) {
      const uint c = rest % p[7u + k];
      rest /= p[7u + k];
      read_at += c * p[15u + k];
      write_at += c * p[23u + k];
      at += c * p[31u + k];
    }
)";
  if (key.index_bytes != 0) text += "    read_at += index_at(at) * p[4];\n";
  return text + "    store(write_at, load_s(read_at));\n  }\n}\n";
}

/// combine(a, v): what is there (a) updated by v.
std::string combine(Combine how) {
  switch (how) {
    case Combine::Assign:
      return "E combine(E a, E v) { return v; }\n";
    case Combine::AddF32:
      return "E combine(E a, E v) { return floatBitsToUint(uintBitsToFloat(a) + "
             "uintBitsToFloat(v)); }\n";
    case Combine::AddInt32:
      return "E combine(E a, E v) { return a + v; }\n";
  }
  return {};
}

std::string update_source(const IndexCopyKey& key) {
  std::string text = kHeader + words(1, "x") + words(2, "ix") + words(3, "v") + words(4, "d");
  text += index_at(key.index_bytes) + loads(key.element_bytes, {"x", "v"}) +
          store(key.element_bytes) + combine(key.combine);
  text += R"(void main() {
  const uint n = p[0];
  const uint dim = p[2];
  const uint lane = p[3];
  const uint index_step = p[24u + dim];
  const uint value_step = p[32u + dim];
  for (uint t = gl_GlobalInvocationID.x; t < n; t += gl_NumWorkGroups.x * 256u) {
    uint rest = t;
    uint k = 0u;
    uint write_at = 0u;
    uint at = 0u;
    uint read_at = 0u;
    for (uint r = p[1]; r > 0u; --r) {
      const uint c = rest % p[7u + r];
      rest /= p[7u + r];
      if (r - 1u == dim) {
        k = c;
      } else {
        write_at += c * p[15u + r];
        at += c * p[23u + r];
        read_at += c * p[31u + r];
      }
    }
    const uint slot = index_at(at + k * index_step);
    bool first = true;
    for (uint j = 0u; first && j < k; ++j) first = index_at(at + j * index_step) != slot;
    if (!first) continue;
    write_at += slot * p[16u + dim];
    E value = load_x(write_at);
    for (uint j = k; j < lane; ++j) {
      if (index_at(at + j * index_step) == slot) value = combine(value, load_v(read_at + j * value_step));
    }
    store(write_at, value);
  }
}
)";
  return text;
}

/// The first index outside [0, size) as n - its position (0: none), by atomicMax.
std::string check_source(const IndexCopyKey& key) {
  std::string text = kHeader + words(1, "ix") + words(2, "flag");
  const bool wide = key.index_bytes == 8;
  text += R"(void main() {
  const uint n = p[0];
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) {
)";
  text += wide ? "    const bool bad = ix[2u * i] >= p[1] || ix[2u * i + 1u] != 0u;\n"
               : "    const bool bad = ix[i] >= p[1];\n";
  return text + "    if (bad) atomicMax(flag[0], n - i);\n  }\n}\n";
}

/// A kernel that writes each element i of d from i alone: body, given i and E, stores it.
std::string generate_source(const IndexCopyKey& key, const std::string& body) {
  return kHeader + words(1, "d") + loads(key.element_bytes, {}) + store(key.element_bytes) +
         R"(void main() {
  const uint n = p[0];
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) {
)" + body +
         "  }\n}\n";
}

/// start + i * step in 32-bit wrapping arithmetic (exact: every value fits 32 bits), an 8-byte
/// element's high word the sign's.
std::string arange_source(const IndexCopyKey& key) {
  const std::string value = "    const uint v = p[1] + i * p[2];\n";
  return generate_source(
      key, value + (key.element_bytes == 8 ? "    store(i, uvec2(v, uint(int(v) >> 31)));\n"
                                           : "    store(i, v);\n"));
}

/// The value's bits (words 1 and 2) over every element.
std::string fill_source(const IndexCopyKey& key) {
  return generate_source(
      key, key.element_bytes == 8 ? "    store(i, uvec2(p[1], p[2]));\n" : "    store(i, p[1]);\n");
}

constexpr shader::IndexCopySources kSources{copy_source, update_source, check_source, arange_source,
                                            fill_source};

}  // namespace index_copy_text

shader::IndexCopySources index_copy_sources() {
  return index_copy_text::kSources;
}

}  // namespace ember::vulkan
