#include "backends/wgpu/interpolate_kernel.h"

#include <memory>
#include <string>

#include "backends/wgpu/conv_pool_kernels.h"
#include "codegen/wgsl_program.h"

namespace ember::wgpu {
// The kernels' text, named apart from the other kernels' helpers (unity builds join the files).
namespace interpolate_text {

// The words are shader/interpolate_passes.h's. taps() is ndarray's interpolate_plan.cpp,
// operation for operation in f32 (ndarray's compute type of f32).
constexpr const char* kTaps = R"(
fn ratio_of(a: u32) -> f32 {
  return bitcast<f32>(p[11u + 2u * a]);
}
// floor(x) as an index, at most extent - 1.
fn floor_index(x: f32, extent: i32) -> i32 {
  let floored = floor(x);
  return select(extent - 1, i32(floored), floored < f32(extent - 1));
}
// Output index o's coordinate along dim a (nearest: o * ratio).
fn coordinate(a: u32, o: i32) -> f32 {
  let ratio = ratio_of(a);
  let mode = p[8u + a];
  if (mode == 0u || p[1] != 0u) { return ratio * f32(o); }
  let centre = ratio * (f32(o) + 0.5f) - 0.5f;
  return select(centre, max(centre, 0.0f), mode == 1u);
}
// The first input index o reads along dim a (nearest: the one; cubic: one more lies below).
fn base_of(a: u32, o: i32) -> i32 {
  return floor_index(coordinate(a, o), i32(p[2u + a]));
}
fn unit_clamp(x: f32) -> f32 {
  return min(max(x, 0.0f), 1.0f);
}
// Keys' cubic convolution kernel (A = -0.75) at distance x: |x| <= 1 and 1 < |x| < 2.
fn cubic_near(x: f32) -> f32 {
  return ((1.25f * x - 2.25f) * x) * x + 1.0f;
}
fn cubic_far(x: f32) -> f32 {
  return ((-0.75f * x + 3.75f) * x - 6.0f) * x + 3.0f;
}
struct Taps { count: i32, index: array<i32, 4>, weight: array<f32, 4> }
// The input indices output index o reads along dim a, and their weights.
fn taps(a: u32, o: i32) -> Taps {
  let extent = i32(p[2u + a]);
  let mode = p[8u + a];
  let c = coordinate(a, o);
  let base = floor_index(c, extent);
  let t = unit_clamp(c - f32(base));
  var result: Taps;
  if (mode == 0u) {
    result.count = 1;
    result.index[0] = base;
    result.weight[0] = 1.0f;
  } else if (mode == 1u) {
    result.count = 2;
    result.index[0] = base;
    result.index[1] = select(base, base + 1, base < extent - 1);
    result.weight[0] = 1.0f - t;
    result.weight[1] = t;
  } else {
    result.count = 4;
    result.index[0] = clamp(base - 1, 0, extent - 1);
    result.index[1] = clamp(base, 0, extent - 1);
    result.index[2] = clamp(base + 1, 0, extent - 1);
    result.index[3] = clamp(base + 2, 0, extent - 1);
    result.weight[0] = cubic_far(t + 1.0f);
    result.weight[1] = cubic_near(t);
    result.weight[2] = cubic_near(1.0f - t);
    result.weight[3] = cubic_far(2.0f - t);
  }
  return result;
}
// Element e's spatial position in the extents at p[at]; base: where its sample and channel start
// in the other tensor, of the extents at p[other].
struct Located { position: vec3<i32>, base: u32 }
fn locate(e: u32, at: u32, other: u32) -> Located {
  let here = split(e, at);
  return Located(here.position, here.rest * p[other] * p[other + 1u] * p[other + 2u]);
}
)";

// The value of output element e: its taps' products, summed.
constexpr const char* kForwardValue = R"(
fn value(e: u32) -> f32 {
  let here = locate(e, 5u, 2u);
  let o = here.position;
  let base = here.base;
  var ta = taps(0u, o.x);
  var tb = taps(1u, o.y);
  var tc = taps(2u, o.z);
  var sum = 0.0f;
  for (var i = 0; i < ta.count; i++) {
    for (var j = 0; j < tb.count; j++) {
      let wab = ta.weight[i] * tb.weight[j];
      let row = base + u32((ta.index[i] * i32(p[3]) + tb.index[j]) * i32(p[4]));
      for (var k = 0; k < tc.count; k++) {
        sum += wab * tc.weight[k] * load(row + u32(tc.index[k]));
      }
    }
  }
  return sum;
}
)";

// The gradient gathers: along dim a, the output indices reading input index i are those whose
// base lies in [i - below, i + above] (the taps' reach: 0 and 0 nearest, 1 and 0 linear, 2 and 1
// cubic; unbounded past an edge, where the taps clamp), a range (base rises with o) that two
// binary searches find.
constexpr const char* kGradient = R"(
// The first output index along dim a whose base is at least key (the extent if none).
fn first_reaching(a: u32, key: i32) -> i32 {
  var low = 0;
  var high = i32(p[5u + a]);
  while (low < high) {
    let middle = (low + high) / 2;
    if (base_of(a, middle) < key) { low = middle + 1; } else { high = middle; }
  }
  return low;
}
// The output indices [x, y) that read input index i along dim a.
fn readers(a: u32, i: i32) -> vec2<i32> {
  let mode = p[8u + a];
  let below = i32(mode);
  let above = select(0, 1, mode == 2u);
  var first = 0;
  if (i != 0) { first = first_reaching(a, i - below); }
  var end = i32(p[5u + a]);
  if (i != i32(p[2u + a]) - 1) { end = first_reaching(a, i + above + 1); }
  return vec2<i32>(first, end);
}
// The weight of output index o on input index i along dim a: its taps' there, added.
fn weight_on(a: u32, o: i32, i: i32) -> f32 {
  var t = taps(a, o);
  var w = 0.0f;
  for (var j = 0; j < t.count; j++) {
    if (t.index[j] == i) { w += t.weight[j]; }
  }
  return w;
}
)";

// The value of input element e of the gradient: the gradients of the outputs reading it, weighed
// and added in a compensated sum (a nearest upsampling by 2^16 adds 2^16 of them; the vulkan
// kernel and ndarray add in double).
constexpr const char* kGradientValue = R"(
fn value(e: u32) -> f32 {
  let here = locate(e, 2u, 5u);
  let i = here.position;
  let base = here.base;
  let ra = readers(0u, i.x);
  let rb = readers(1u, i.y);
  let rc = readers(2u, i.z);
  opaque_zero = p[0] >> 31u;
  var total = Sum(0.0f, 0.0f);
  for (var oa = ra.x; oa < ra.y; oa++) {
    let wa = weight_on(0u, oa, i.x);
    for (var ob = rb.x; ob < rb.y; ob++) {
      let wab = wa * weight_on(1u, ob, i.y);
      let row = base + u32((oa * i32(p[6]) + ob) * i32(p[7]));
      for (var oc = rc.x; oc < rc.y; oc++) {
        total = add(total, wab * weight_on(2u, oc, i.z) * load(row + u32(oc)));
      }
    }
  }
  return sum_value(total);
}
)";

// f32: an invocation an element. f16, packed two to a word (the first the low half, as wgpu's
// other kernels store it): an invocation a word, each half rounded to nearest even from f32.
constexpr const char* kStoreF32 = R"(  let e = element(gid, groups);
  if (e >= p[0]) { return; }
  dst[e] = value(e);
}
)";
constexpr const char* kStoreF16 = R"(  let w = element(gid, groups);
  let e = 2u * w;
  if (e >= p[0]) { return; }
  var high = 0u;
  if (e + 1u < p[0]) { high = ember_f16_bits(value(e + 1u)); }
  dst[w] = ember_f16_bits(value(e)) | (high << 16u);
}
)";

class WgslSources final : public shader::InterpolateSources {
 public:
  std::string forward(DType dtype) const override { return kernel(dtype, kForwardValue); }
  std::string gradient(DType dtype) const override {
    return kernel(dtype,
                  std::string(codegen::wgsl_compensated_sum_helper()) + kGradient + kGradientValue);
  }

 private:
  /// The kernel whose value(e) is value's, over src into dst of dtype (f32, or f16 packed).
  static std::string kernel(DType dtype, const std::string& value) {
    const bool half = dtype == DType::F16;
    const std::string element = half ? "u32" : "f32";
    std::string text = std::string(kSpatialHeader) + spatial_buffer(1, element, "src") +
                       spatial_buffer(2, element, "dst");
    text += half ? "fn load(i: u32) -> f32 { return unpack2x16float(src[i >> 1u])[i & 1u]; }\n"
                 : "fn load(i: u32) -> f32 { return src[i]; }\n";
    if (half) text += codegen::wgsl_f16_bits_helper();
    return text + kTaps + value + spatial_entry("256") + (half ? kStoreF16 : kStoreF32);
  }
};

}  // namespace interpolate_text

InterpolateKernels make_interpolate_kernels(const Adapter& adapter, const KernelRunner& runner) {
  return InterpolateKernels(spatial_limits(adapter, runner.limits()),
                            std::make_unique<interpolate_text::WgslSources>(),
                            shader::spatial_dispatch<BufferRange>(runner));
}

}  // namespace ember::wgpu
