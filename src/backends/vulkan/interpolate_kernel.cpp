#include "backends/vulkan/interpolate_kernel.h"

#include <memory>
#include <string>

#include "backends/vulkan/conv_pool_kernels.h"

namespace ember::vulkan {
// The kernels' text, named apart from the other kernels' helpers (unity builds join the files).
namespace interpolate_text {

// The words are shader/interpolate_passes.h's. T: the tensors' type, F: the coordinates' (x's
// compute type, ndarray's), A: the sums'. taps() is ndarray's interpolate_plan.cpp, operation
// for operation; `precise` keeps the compiler from fusing them into fma, which rounds once.
constexpr const char* kTaps = R"(
F ratio_of(uint a) {
#ifdef F64
  return packDouble2x32(uvec2(p[11u + 2u * a], p[12u + 2u * a]));
#else
  return uintBitsToFloat(p[11u + 2u * a]);
#endif
}
// floor(x) as an index, at most extent - 1.
int floor_index(F x, int extent) {
  const F floored = floor(x);
  return floored < F(extent - 1) ? int(floored) : extent - 1;
}
// Output index o's coordinate along dim a (nearest: o * ratio).
F coordinate(uint a, int o) {
  const F ratio = ratio_of(a);
  const uint mode = p[8u + a];
  if (mode == 0u || p[1] != 0u) {
    precise F scaled = ratio * F(o);
    return scaled;
  }
  precise F centre = ratio * (F(o) + F(0.5)) - F(0.5);
  return mode == 1u ? max(centre, F(0)) : centre;
}
// The first input index o reads along dim a (nearest: the one; cubic: one more lies below).
int base_of(uint a, int o) {
  return floor_index(coordinate(a, o), int(p[2u + a]));
}
F unit_clamp(F x) {
  return min(max(x, F(0)), F(1));
}
// Keys' cubic convolution kernel (A = -0.75) at distance x: |x| <= 1 and 1 < |x| < 2.
F cubic_near(F x) {
  precise F y = ((F(1.25) * x - F(2.25)) * x) * x + F(1);
  return y;
}
F cubic_far(F x) {
  precise F y = ((F(-0.75) * x - F(-3.75)) * x + F(-6)) * x - F(-3);
  return y;
}
struct Taps {
  int count;
  int index[4];
  F weight[4];
};
// The input indices output index o reads along dim a, and their weights.
Taps taps(uint a, int o) {
  const int extent = int(p[2u + a]);
  const uint mode = p[8u + a];
  const F c = coordinate(a, o);
  const int base = floor_index(c, extent);
  precise F t = unit_clamp(c - F(base));
  Taps result;
  if (mode == 0u) {
    result.count = 1;
    result.index[0] = base;
    result.weight[0] = F(1);
  } else if (mode == 1u) {
    result.count = 2;
    result.index[0] = base;
    result.index[1] = base < extent - 1 ? base + 1 : base;
    precise F rest = F(1) - t;
    result.weight[0] = rest;
    result.weight[1] = t;
  } else {
    result.count = 4;
    result.index[0] = clamp(base - 1, 0, extent - 1);
    result.index[1] = clamp(base, 0, extent - 1);
    result.index[2] = clamp(base + 1, 0, extent - 1);
    result.index[3] = clamp(base + 2, 0, extent - 1);
    precise F t1 = t + F(1);
    precise F t2 = F(1) - t;
    precise F t3 = F(2) - t;
    result.weight[0] = cubic_far(t1);
    result.weight[1] = cubic_near(t);
    result.weight[2] = cubic_near(t2);
    result.weight[3] = cubic_far(t3);
  }
  return result;
}
// Element e's spatial position in the extents at p[at]; base: where its sample and channel start
// in the other tensor, of the extents at p[other].
ivec3 locate(uint e, uint at, uint other, out uint base) {
  uint plane;
  const ivec3 position = split(e, at, plane);
  base = plane * p[other] * p[other + 1u] * p[other + 2u];
  return position;
}
)";

constexpr const char* kForward = R"(
void main() {
  const uint e = element();
  if (e >= p[0]) return;
  uint base;
  const ivec3 o = locate(e, 5u, 2u, base);
  const Taps ta = taps(0u, o.x);
  const Taps tb = taps(1u, o.y);
  const Taps tc = taps(2u, o.z);
  A sum = A(0);
  for (int i = 0; i < ta.count; ++i) {
    for (int j = 0; j < tb.count; ++j) {
      const A wab = A(ta.weight[i]) * A(tb.weight[j]);
      const uint row = base + uint((ta.index[i] * int(p[3]) + tb.index[j]) * int(p[4]));
      for (int k = 0; k < tc.count; ++k)
        sum += wab * A(tc.weight[k]) * A(x[row + uint(tc.index[k])]);
    }
  }
  y[e] = T(sum);
}
)";

// The gradient gathers: along dim a, the output indices reading input index i are those whose
// base lies in [i - below, i + above] (the taps' reach: 0 and 0 nearest, 1 and 0 linear, 2 and 1
// cubic; unbounded past an edge, where the taps clamp), a range (base rises with o) that two
// binary searches find.
constexpr const char* kGradient = R"(
// The first output index along dim a whose base is at least key (the extent if none).
int first_reaching(uint a, int key) {
  int low = 0;
  int high = int(p[5u + a]);
  while (low < high) {
    const int middle = (low + high) / 2;
    if (base_of(a, middle) < key) low = middle + 1; else high = middle;
  }
  return low;
}
// The output indices [x, y) that read input index i along dim a.
ivec2 readers(uint a, int i) {
  const uint mode = p[8u + a];
  const int below = int(mode);
  const int above = mode == 2u ? 1 : 0;
  const int first = i == 0 ? 0 : first_reaching(a, i - below);
  const int end = i == int(p[2u + a]) - 1 ? int(p[5u + a]) : first_reaching(a, i + above + 1);
  return ivec2(first, end);
}
// The weight of output index o on input index i along dim a: its taps' there, added.
A weight_on(uint a, int o, int i) {
  const Taps t = taps(a, o);
  A w = A(0);
  for (int j = 0; j < t.count; ++j)
    if (t.index[j] == i) w += A(t.weight[j]);
  return w;
}
void main() {
  const uint e = element();
  if (e >= p[0]) return;
  uint base;
  const ivec3 i = locate(e, 2u, 5u, base);
  const ivec2 ra = readers(0u, i.x);
  const ivec2 rb = readers(1u, i.y);
  const ivec2 rc = readers(2u, i.z);
  A sum = A(0);
  for (int oa = ra.x; oa < ra.y; ++oa) {
    const A wa = weight_on(0u, oa, i.x);
    for (int ob = rb.x; ob < rb.y; ++ob) {
      const A wab = wa * weight_on(1u, ob, i.y);
      const uint row = base + uint((oa * int(p[6]) + ob) * int(p[7]));
      for (int oc = rc.x; oc < rc.y; ++oc)
        sum += wab * weight_on(2u, oc, i.z) * A(dy[row + uint(oc)]);
    }
  }
  dx[e] = T(sum);
}
)";

class GlslSources final : public shader::InterpolateSources {
 public:
  explicit GlslSources(bool doubles) : doubles_(doubles) {}

  std::string forward(DType dtype) const override {
    return header(dtype) + spatial_buffer(1, "readonly", type_of(dtype), "x") +
           spatial_buffer(2, "writeonly", type_of(dtype), "y") + kTaps + kForward;
  }
  std::string gradient(DType dtype) const override {
    return header(dtype) + spatial_buffer(1, "readonly", type_of(dtype), "dy") +
           spatial_buffer(2, "writeonly", type_of(dtype), "dx") + kTaps + kGradient;
  }

 private:
  /// The tensors' type; f16 is stored as float16_t.
  static std::string type_of(DType dtype) {
    if (dtype == DType::F16) return "float16_t";
    return dtype == DType::F64 ? "double" : "float";
  }

  /// The parameter block and the types: coordinates in ndarray's compute type (f32 for f16),
  /// sums in double where the device has it.
  std::string header(DType dtype) const {
    const std::string type = type_of(dtype);
    const std::string coordinates = dtype == DType::F64 ? "double" : "float";
    const std::string extensions =
        dtype == DType::F16 ? "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : "
                              "require\n#extension GL_EXT_shader_16bit_storage : require\n"
                            : "";
    return spatial_header(type, doubles_ ? "double" : coordinates, "local_size_x = 256",
                          extensions) +
           "#define F " + coordinates + "\n" + (dtype == DType::F64 ? "#define F64 1\n" : "");
  }

  bool doubles_;
};

}  // namespace interpolate_text

InterpolateKernels make_interpolate_kernels(const PhysicalDevice& physical,
                                            const KernelRunner& runner) {
  return InterpolateKernels(
      spatial_limits(physical, runner.limits()),
      std::make_unique<interpolate_text::GlslSources>(physical.features.float64),
      shader::spatial_dispatch<BufferRange>(runner));
}

}  // namespace ember::vulkan
