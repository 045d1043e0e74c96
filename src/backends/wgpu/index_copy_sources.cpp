#include "backends/wgpu/index_copy_sources.h"

#include <string>
#include <vector>

namespace ember::wgpu {
// The kernels' text, named apart from the other kernels' helpers (unity builds join the files).
namespace index_copy_text {

using shader::Combine;
using shader::IndexCopyKey;

constexpr const char* kHeader =
    R"(// ember's wgpu data movement (src/backends/wgpu/index_copy_sources.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
)";

constexpr const char* kMain = R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
)";

/// A binding of 32-bit words named name (atomic ones where they are written in parts).
std::string words(int binding, const std::string& name, bool atomic = false) {
  return "@group(0) @binding(" + std::to_string(binding) + ") var<storage, read_write> " + name +
         ": array<" + (atomic ? "atomic<u32>" : "u32") + ">;\n";
}

/// E (an element's bits: u32, or vec2<u32> for 8 bytes) and load_<name>(i) for each buffer read.
std::string loads(uint32_t bytes, const std::vector<std::string>& names) {
  std::string text = bytes == 8 ? "alias E = vec2<u32>;\n" : "alias E = u32;\n";
  for (const std::string& b : names) {
    text += "fn load_" + b + "(i: u32) -> E { ";
    if (bytes == 8) {
      text += "return vec2<u32>(" + b + "[2u * i], " + b + "[2u * i + 1u]); }\n";
    } else if (bytes == 4) {
      text += "return " + b + "[i]; }\n";
    } else {
      const std::string per = std::to_string(4 / bytes);
      const std::string bits = std::to_string(8 * bytes);
      text += "return extractBits(" + b + "[i / " + per + "u], (i % " + per + "u) * " + bits +
              "u, " + bits + "u); }\n";
    }
  }
  return text;
}

/// store(i, v) into the buffer named d: a 1- or 2-byte element by clearing and setting its bits
/// atomically (other invocations write the rest of its word).
std::string store(uint32_t bytes) {
  if (bytes == 8) return "fn store(i: u32, v: E) { d[2u * i] = v.x; d[2u * i + 1u] = v.y; }\n";
  if (bytes == 4) return "fn store(i: u32, v: E) { d[i] = v; }\n";
  const std::string per = std::to_string(4 / bytes);
  const std::string shift = "((i % " + per + "u) * " + std::to_string(8 * bytes) + "u)";
  const std::string mask = bytes == 1 ? "0xffu" : "0xffffu";
  return "fn store(i: u32, v: E) {\n  atomicAnd(&d[i / " + per + "u], ~(" + mask + " << " + shift +
         "));\n  atomicOr(&d[i / " + per + "u], (v & " + mask + ") << " + shift + ");\n}\n";
}

/// index_at(i): the low word of index element i (checked in range before: the high word is 0).
std::string index_at(uint32_t index_bytes) {
  return "fn index_at(i: u32) -> u32 { return ix[i * " + std::to_string(index_bytes / 4) +
         "u]; }\n";
}

std::string copy_source(const IndexCopyKey& key) {
  std::string text = kHeader + words(1, "s") + words(2, "d", key.element_bytes < 4);
  if (key.index_bytes != 0) text += words(3, "ix") + index_at(key.index_bytes);
  text += loads(key.element_bytes, {"s"}) + store(key.element_bytes) + kMain;
  text += R"(  let n = p[0];
  for (var e = gid.x; e < n; e += groups.x * 256u) {
    var rest = e;
    var read_at = p[2];
    var write_at = p[3];
    var at = 0u;
    for (var k = p[1]; k > 0u; k--) {
      let c = rest % p[7u + k];
      rest /= p[7u + k];
      read_at += c * p[15u + k];
      write_at += c * p[23u + k];
      at += c * p[31u + k];
    }
)";
  text += key.index_bytes != 0 ? "    read_at += index_at(at) * p[4];\n" : "    _ = at;\n";
  return text + "    store(write_at, load_s(read_at));\n  }\n}\n";
}

/// combine(a, v): what is there (a) updated by v.
std::string combine(Combine how) {
  switch (how) {
    case Combine::Assign:
      return "fn combine(a: E, v: E) -> E { return v; }\n";
    case Combine::AddF32:
      return "fn combine(a: E, v: E) -> E { return bitcast<u32>(bitcast<f32>(a) + "
             "bitcast<f32>(v)); }\n";
    case Combine::AddInt32:
      return "fn combine(a: E, v: E) -> E { return a + v; }\n";
  }
  return {};
}

std::string update_source(const IndexCopyKey& key) {
  std::string text = kHeader + words(1, "x") + words(2, "ix") + words(3, "v") +
                     words(4, "d", key.element_bytes < 4);
  text += index_at(key.index_bytes) + loads(key.element_bytes, {"x", "v"}) +
          store(key.element_bytes) + combine(key.combine) + kMain;
  text += R"(  let n = p[0];
  let dim = p[2];
  let lane = p[3];
  let index_step = p[24u + dim];
  let value_step = p[32u + dim];
  for (var t = gid.x; t < n; t += groups.x * 256u) {
    var rest = t;
    var k = 0u;
    var write_at = 0u;
    var at = 0u;
    var read_at = 0u;
    for (var r = p[1]; r > 0u; r--) {
      let c = rest % p[7u + r];
      rest /= p[7u + r];
      if (r - 1u == dim) {
        k = c;
      } else {
        write_at += c * p[15u + r];
        at += c * p[23u + r];
        read_at += c * p[31u + r];
      }
    }
    let slot = index_at(at + k * index_step);
    var first = true;
    for (var j = 0u; first && j < k; j++) {
      first = index_at(at + j * index_step) != slot;
    }
    if (!first) {
      continue;
    }
    write_at += slot * p[16u + dim];
    var value = load_x(write_at);
    for (var j = k; j < lane; j++) {
      if (index_at(at + j * index_step) == slot) {
        value = combine(value, load_v(read_at + j * value_step));
      }
    }
    store(write_at, value);
  }
}
)";
  return text;
}

/// The first index outside [0, size) as n - its position (0: none), by atomicMax.
std::string check_source(const IndexCopyKey& key) {
  std::string text = kHeader + words(1, "ix") + words(2, "flag", true) + kMain;
  const bool wide = key.index_bytes == 8;
  text += R"(  let n = p[0];
  for (var i = gid.x; i < n; i += groups.x * 256u) {
)";
  text += wide ? "    let bad = ix[2u * i] >= p[1] || ix[2u * i + 1u] != 0u;\n"
               : "    let bad = ix[i] >= p[1];\n";
  return text + "    if (bad) { atomicMax(&flag[0], n - i); }\n  }\n}\n";
}

/// A kernel that writes each element i of d from i alone: body, given i and E, stores it.
std::string generate_source(const IndexCopyKey& key, const std::string& body) {
  return kHeader + words(1, "d", key.element_bytes < 4) + loads(key.element_bytes, {}) +
         store(key.element_bytes) + kMain + R"(  let n = p[0];
  for (var i = gid.x; i < n; i += groups.x * 256u) {
)" + body +
         "  }\n}\n";
}

/// start + i * step in 32-bit wrapping arithmetic (exact: every value fits 32 bits), an 8-byte
/// element's high word the sign's.
std::string arange_source(const IndexCopyKey& key) {
  const std::string value = "    let v = p[1] + i * p[2];\n";
  return generate_source(
      key, value + (key.element_bytes == 8
                        ? "    store(i, vec2<u32>(v, bitcast<u32>(bitcast<i32>(v) >> 31u)));\n"
                        : "    store(i, v);\n"));
}

/// The value's bits (words 1 and 2) over every element.
std::string fill_source(const IndexCopyKey& key) {
  return generate_source(key, key.element_bytes == 8 ? "    store(i, vec2<u32>(p[1], p[2]));\n"
                                                     : "    store(i, p[1]);\n");
}

constexpr shader::IndexCopySources kSources{copy_source, update_source, check_source, arange_source,
                                            fill_source};

}  // namespace index_copy_text

shader::IndexCopySources index_copy_sources() {
  return index_copy_text::kSources;
}

}  // namespace ember::wgpu
