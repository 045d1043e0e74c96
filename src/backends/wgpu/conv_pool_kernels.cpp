#include "backends/wgpu/conv_pool_kernels.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace ember::wgpu {

const char* const kSpatialHeader =
    R"(// ember's wgpu convolution, pooling or interpolation
@group(0) @binding(0) var<storage, read> p: array<u32>;
// The element an invocation writes: workgroups are numbered y * (workgroups along x) + x.
fn element(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
  return gid.y * groups.x * 256u + gid.x;
}
// e's position (d, h, w) in the spatial extents p[at], p[at + 1], p[at + 2], row-major; rest:
// what is left of e above them (its plane, or its sample and channel).
struct Split { position: vec3<i32>, rest: u32 }
fn split(e: u32, at: u32) -> Split {
  var t = e;
  let w = i32(t % p[at + 2u]);
  t /= p[at + 2u];
  let h = i32(t % p[at + 1u]);
  t /= p[at + 1u];
  return Split(vec3<i32>(i32(t % p[at]), h, w), t / p[at]);
}
)";

std::string spatial_buffer(int binding, const std::string& elem, const std::string& name) {
  return "@group(0) @binding(" + std::to_string(binding) + ") var<storage, read_write> " + name +
         ": array<" + elem + ">;\n";
}

std::string spatial_entry(const std::string& size) {
  return "@compute @workgroup_size(" + size + ")\n" +
         R"(fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
)";
}

namespace {

// Conv (words: conv_passes.h). tap() is ndarray's conv_plan.h: along dim a, output o meets input
// i = o s - p + k d (transposed: o = i s - p + k d, i = (o + p - k d) / s where exact).
constexpr const char* kConvTap = R"(
// The geometry, read from the parameters once (load_geometry) rather than at every tap.
var<private> stride_of: vec3<i32>;
var<private> padding_of: vec3<i32>;
var<private> dilation_of: vec3<i32>;
var<private> extent_of: vec3<i32>;
var<private> transposed_conv: bool;
fn load_geometry() {
  stride_of = vec3<i32>(i32(p[15]), i32(p[16]), i32(p[17]));
  padding_of = vec3<i32>(i32(p[18]), i32(p[19]), i32(p[20]));
  dilation_of = vec3<i32>(i32(p[21]), i32(p[22]), i32(p[23]));
  extent_of = vec3<i32>(i32(p[6]), i32(p[7]), i32(p[8]));
  transposed_conv = p[1] != 0u;
}
fn tap(a: u32, o: i32, k: i32) -> i32 {
  let stride = stride_of[a];
  let padding = padding_of[a];
  let dilation = dilation_of[a];
  let extent = extent_of[a];
  if (!transposed_conv) {
    let i = o * stride - padding + k * dilation;
    return select(-1, i, i >= 0 && i < extent);
  }
  let shifted = o - k * dilation + padding;
  if (shifted < 0 || shifted % stride != 0 || shifted / stride >= extent) { return -1; }
  return shifted / stride;
}
// Where the terms of output channel oc of group g of sample n start: x0 in x (then in_volume on
// for each input channel), w0 in the weight (then w_step on).
struct Terms { x0: u32, in_volume: u32, w0: u32, w_step: u32 }
fn terms_of(n: u32, g: u32, oc: u32) -> Terms {
  let ipg = p[4];
  let opg = p[5];
  let in_volume = p[6] * p[7] * p[8];
  let kernel_volume = p[12] * p[13] * p[14];
  let x0 = (n * p[3] + g) * ipg * in_volume;
  // weight [C_out, C_in / groups, *kernel]; transposed [C_in, C_out / groups, *kernel]
  if (transposed_conv) {
    return Terms(x0, in_volume, (g * ipg * opg + oc) * kernel_volume, opg * kernel_volume);
  }
  return Terms(x0, in_volume, (g * opg + oc) * ipg * kernel_volume, kernel_volume);
}
)";

// The direct Conv kernel: an invocation an output element.
constexpr const char* kDirectConvBody = R"(  let e = element(gid, groups);
  if (e >= p[0]) { return; }
  load_geometry();
  let here = split(e, 9u);
  let o = here.position;
  let t = here.rest;
  let group_count = p[3];
  let ipg = p[4];
  let opg = p[5];
  let c = t % (group_count * opg);
  let n = t / (group_count * opg);
  let g = c / opg;
  let oc = c - g * opg;
  let terms = terms_of(n, g, oc);
  let kernel = vec3<i32>(i32(p[12]), i32(p[13]), i32(p[14]));
  var acc = 0.0f;
  for (var kd = 0; kd < kernel.x; kd++) {
    let id = tap(0u, o.x, kd);
    if (id < 0) { continue; }
    for (var kh = 0; kh < kernel.y; kh++) {
      let ih = tap(1u, o.y, kh);
      if (ih < 0) { continue; }
      for (var kw = 0; kw < kernel.z; kw++) {
        let iw = tap(2u, o.z, kw);
        if (iw < 0) { continue; }
        var xi = terms.x0 + u32((id * extent_of.y + ih) * extent_of.z + iw);
        var wi = terms.w0 + u32((kd * kernel.y + kh) * kernel.z + kw);
        for (var ic = 0u; ic < ipg; ic++) {
          acc = fma(x[xi], w[wi], acc);
          xi += terms.in_volume;
          wi += terms.w_step;
        }
      }
    }
  }
)";

// The tiled Conv kernel, as vulkan's: a workgroup of 16 x 16 writes 16 output channels (rows, y)
// of a group at 16 output positions (columns, x). For each kernel position, each invocation finds
// its column's tap once (a tap in the padding is skipped, as ndarray skips it, not multiplied by
// 0); then the weight's and the gathered patch's terms of 16 input channels at a time are staged
// through workgroup memory.
constexpr const char* kTiledConvTiles = R"(var<workgroup> weight_tile: array<array<f32, 16>, 16>;
var<workgroup> patch_tile: array<array<f32, 16>, 16>;
)";

constexpr const char* kTiledConvBody = R"(  let group_count = p[3];
  let ipg = p[4];
  let opg = p[5];
  let positions = p[24];
  let position_tiles = p[25];
  let channel_tiles = p[26];
  let tile = group.y * groups.x + group.x;
  if (tile >= group_count * channel_tiles * position_tiles) { return; }  // the whole workgroup
  load_geometry();
  let g = tile / position_tiles / channel_tiles;
  let lx = local.x;
  let ly = local.y;
  let oc = (tile / position_tiles % channel_tiles) * 16u + ly;
  let position = tile % position_tiles * 16u + lx;
  let here = split(position, 9u);
  let o = here.position;
  let n = here.rest;
  let terms = terms_of(n, g, oc);
  let out_volume = p[9] * p[10] * p[11];
  let kh_kw = p[13] * p[14];
  let kernel_volume = p[12] * kh_kw;
  var acc = 0.0f;
  for (var k = 0u; k < kernel_volume; k++) {
    // The tap of this invocation's position (its column's) at kernel position k, if inside x.
    var at = -1;
    if (position < positions) {
      let id = tap(0u, o.x, i32(k / kh_kw));
      let ih = tap(1u, o.y, i32(k / p[14] % p[13]));
      let iw = tap(2u, o.z, i32(k % p[14]));
      if (id >= 0 && ih >= 0 && iw >= 0) { at = i32((u32(id) * p[7] + u32(ih)) * p[8] + u32(iw)); }
    }
    for (var c0 = 0u; c0 < ipg; c0 += 16u) {
      var weight = 0.0f;
      if (oc < opg && c0 + lx < ipg) { weight = w[terms.w0 + (c0 + lx) * terms.w_step + k]; }
      weight_tile[ly][lx] = weight;
      var gathered = 0.0f;
      if (at >= 0 && c0 + ly < ipg) {
        gathered = x[terms.x0 + (c0 + ly) * terms.in_volume + u32(at)];
      }
      patch_tile[ly][lx] = gathered;
      workgroupBarrier();
      if (at >= 0) {
        let steps = min(16u, ipg - c0);
        for (var j = 0u; j < steps; j++) { acc = fma(weight_tile[ly][j], patch_tile[j][lx], acc); }
      }
      workgroupBarrier();
    }
  }
  if (oc >= opg || position >= positions) { return; }
  let c = g * opg + oc;
  let e = (n * group_count * opg + c) * out_volume + position % out_volume;
)";

// ConvWeightGrad (words: conv_passes.h): a workgroup a weight element, its lanes each adding
// rows of (sample, near d, near h) along near w, then the lanes' sums in workgroup memory.
constexpr const char* kConvWeightGrad = R"(var<workgroup> partial: array<f32, 256>;
)";

constexpr const char* kConvWeightGradBody = R"(  let wi = group.y * groups.x + group.x;
  if (wi >= p[0]) { return; }  // the whole workgroup: the barriers stay uniform
  let transposed = p[1] != 0u;
  let group_count = p[3];
  let ipg = p[4];
  let opg = p[5];
  let kh_kw = p[13] * p[14];
  let kernel_volume = p[12] * kh_kw;
  let k = wi % kernel_volume;
  let pair = wi / kernel_volume;
  // weight [C_out, C_in / groups, *kernel]; transposed [C_in, C_out / groups, *kernel]
  let second = select(ipg, opg, transposed);
  let first = pair / second;
  let g = first / select(opg, ipg, transposed);
  let ic = select(pair % second, first % ipg, transposed);
  let oc = select(first % opg, pair % second, transposed);
  // Near position q meets far position q s - p + k d (ndarray's kernel_taps): far = near s + shift.
  let stride = vec3<i32>(i32(p[15]), i32(p[16]), i32(p[17]));
  let kernel = vec3<i32>(i32(k / kh_kw), i32(k / p[14] % p[13]), i32(k % p[14]));
  let shift = kernel * vec3<i32>(i32(p[21]), i32(p[22]), i32(p[23])) -
              vec3<i32>(i32(p[18]), i32(p[19]), i32(p[20]));
  // The near side: the output's positions (x's, transposed); the far side the other.
  let in_extent = vec3<i32>(i32(p[6]), i32(p[7]), i32(p[8]));
  let out_extent = vec3<i32>(i32(p[9]), i32(p[10]), i32(p[11]));
  let near = select(out_extent, in_extent, transposed);
  let far = select(in_extent, out_extent, transposed);
  let in_volume = u32(in_extent.x * in_extent.y * in_extent.z);
  let out_volume = u32(out_extent.x * out_extent.y * out_extent.z);
  // A lane takes rows (sample, near d, near h) and walks each along w.
  let rows = p[2] * u32(near.x * near.y);
  let lane = local.x;
  var acc = 0.0f;
  for (var r = lane; r < rows; r += 256u) {
    let nh = i32(r % u32(near.y));
    let t = r / u32(near.y);
    let nd = i32(t % u32(near.x));
    let n = t / u32(near.x);
    let fd = nd * stride.x + shift.x;
    let fh = nh * stride.y + shift.y;
    if (fd < 0 || fd >= far.x || fh < 0 || fh >= far.y) { continue; }
    let near_row = u32((nd * near.y + nh) * near.z);
    let far_row = u32((fd * far.y + fh) * far.z);
    let x_row =
        ((n * group_count + g) * ipg + ic) * in_volume + select(far_row, near_row, transposed);
    let g_row =
        ((n * group_count + g) * opg + oc) * out_volume + select(near_row, far_row, transposed);
    for (var nw = 0; nw < near.z; nw++) {
      let fw = nw * stride.z + shift.z;
      if (fw < 0 || fw >= far.z) { continue; }
      acc = fma(x[x_row + u32(select(fw, nw, transposed))],
                dy[g_row + u32(select(nw, fw, transposed))], acc);
    }
  }
  partial[lane] = acc;
  workgroupBarrier();
  for (var s = 128u; s > 0u; s = s >> 1u) {
    if (lane < s) { partial[lane] += partial[lane + s]; }
    workgroupBarrier();
  }
  if (lane == 0u) { dw[wi] = partial[0]; }
}
)";

// The windows of pooling (words: pool_passes.h), as ndarray's pool_windows.cpp makes them.
constexpr const char* kWindows = R"(
struct Window { first: i32, count: i32, padded: i32, step: i32 }
fn window(a: u32, o: i32) -> Window {
  let extent = i32(p[5u + a]);
  if (p[1] != 0u) {
    let out_extent = i32(p[8u + a]);
    let start = o * extent / out_extent;
    let end = ((o + 1) * extent + out_extent - 1) / out_extent;
    return Window(start, end - start, end - start, 1);
  }
  let kernel = i32(p[11u + a]);
  let stride = i32(p[14u + a]);
  let padding = i32(p[17u + a]);
  let dilation = i32(p[20u + a]);
  let start = o * stride - padding;
  let skipped = select(0, (dilation - 1 - start) / dilation, start < 0);
  let before_end = (extent - start + dilation - 1) / dilation;
  return Window(start + skipped * dilation, min(kernel, before_end) - skipped,
                min(kernel, extent + padding - start), dilation);
}
fn divisor(a: Window, b: Window, c: Window) -> f32 {
  if (p[3] != 0u) { return f32(p[3]); }
  if (p[2] != 0u) { return f32(a.padded) * f32(b.padded) * f32(c.padded); }
  return f32(a.count) * f32(b.count) * f32(c.count);
}
fn is_nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
)";

// Pool and AdaptivePool: the first maximum (a NaN replaces any value) or the average of a window.
constexpr const char* kPoolHead = R"(  let e = element(gid, groups);
  if (e >= p[0]) { return; }
  let here = split(e, 8u);
  let plane = here.rest;
  let a = window(0u, here.position.x);
  let b = window(1u, here.position.y);
  let c = window(2u, here.position.z);
  let base = plane * p[5] * p[6] * p[7];
  var best = -1;
  var best_value = 0.0f;
  var sum = 0.0f;
  for (var j = 0; j < a.count * b.count * c.count; j++) {
    let i0 = j / (b.count * c.count);
    let i1 = j / c.count % b.count;
    let i2 = j % c.count;
    let at = ((a.first + i0 * a.step) * i32(p[6]) + b.first + i1 * b.step) * i32(p[7]) +
             c.first + i2 * c.step;
    let v = x[base + u32(at)];
)";

constexpr const char* kMaxTail = R"(    if (best < 0 || is_nan(v) || v > best_value) {
      best = at;
      best_value = v;
    }
  }
  y[e] = best_value;
  if (p[4] == 2u) {
    index[2u * e] = u32(best);
    index[2u * e + 1u] = 0u;
  } else {
    index[e] = u32(best);
  }
}
)";

constexpr const char* kAvgTail = R"(    sum += v;
  }
  y[e] = sum / divisor(a, b, c);
}
)";

// AvgPoolGrad and AdaptiveAvgPoolGrad: an input element gathers the shares of the windows that
// hold it, in their row-major order.
constexpr const char* kAvgPoolGrad = R"(
fn candidates(a: u32, i: i32) -> vec2<i32> {
  let extent = i32(p[5u + a]);
  let out_extent = i32(p[8u + a]);
  if (p[1] != 0u) {
    return vec2<i32>(i * out_extent / extent,
                     min(out_extent - 1, ((i + 1) * out_extent - 1) / extent));
  }
  let padding = i32(p[17u + a]);
  let stride = i32(p[14u + a]);
  let reach = i + padding - (i32(p[11u + a]) - 1) * i32(p[20u + a]);
  let first = select((reach + stride - 1) / stride, 0, reach <= 0);
  return vec2<i32>(first, min(out_extent - 1, (i + padding) / stride));
}
fn holds(w: Window, i: i32) -> bool {
  let offset = i - w.first;
  return offset >= 0 && offset % w.step == 0 && offset / w.step < w.count;
}
)";

constexpr const char* kAvgPoolGradBody = R"(  let e = element(gid, groups);
  if (e >= p[0]) { return; }
  let here = split(e, 5u);
  let i = here.position;
  let plane = here.rest;
  let ra = candidates(0u, i.x);
  let rb = candidates(1u, i.y);
  let rc = candidates(2u, i.z);
  let na = max(ra.y - ra.x + 1, 0);
  let nb = max(rb.y - rb.x + 1, 0);
  let nc = max(rc.y - rc.x + 1, 0);
  let base = plane * p[8] * p[9] * p[10];
  var sum = 0.0f;
  for (var j = 0; j < na * nb * nc; j++) {
    let o0 = ra.x + j / (nb * nc);
    let o1 = rb.x + j / nc % nb;
    let o2 = rc.x + j % nc;
    let a = window(0u, o0);
    let b = window(1u, o1);
    let c = window(2u, o2);
    if (!holds(a, i.x) || !holds(b, i.y) || !holds(c, i.z)) { continue; }
    sum += dy[base + u32((o0 * i32(p[9]) + o1) * i32(p[10]) + o2)] / divisor(a, b, c);
  }
  dx[e] = sum;
}
)";

class WgslSources final : public shader::ConvPoolSources {
 public:
  std::string conv(DType /*dtype*/, bool bias, bool tiled) const override {
    std::string text =
        std::string(kSpatialHeader) + spatial_buffer(1, "f32", "x") + spatial_buffer(2, "f32", "w");
    if (bias) text += spatial_buffer(3, "f32", "b");
    text += spatial_buffer(bias ? 4 : 3, "f32", "y") + kConvTap;
    text += tiled ? kTiledConvTiles + spatial_entry("16, 16") + kTiledConvBody
                  : spatial_entry("256") + kDirectConvBody;
    return text + (bias ? "  y[e] = b[c] + acc;\n}\n" : "  y[e] = acc;\n}\n");
  }
  std::string conv_weight_grad(DType /*dtype*/) const override {
    return std::string(kSpatialHeader) + spatial_buffer(1, "f32", "x") +
           spatial_buffer(2, "f32", "dy") + spatial_buffer(3, "f32", "dw") + kConvWeightGrad +
           spatial_entry("256") + kConvWeightGradBody;
  }
  std::string pool(DType /*dtype*/, ir::PoolOp op) const override {
    std::string text =
        std::string(kSpatialHeader) + spatial_buffer(1, "f32", "x") + spatial_buffer(2, "f32", "y");
    if (op == ir::PoolOp::Max) text += spatial_buffer(3, "u32", "index");
    return text + kWindows + spatial_entry("256") + kPoolHead +
           (op == ir::PoolOp::Max ? kMaxTail : kAvgTail);
  }
  std::string avg_pool_grad(DType /*dtype*/) const override {
    return std::string(kSpatialHeader) + spatial_buffer(1, "f32", "dy") +
           spatial_buffer(2, "f32", "dx") + kWindows + kAvgPoolGrad + spatial_entry("256") +
           kAvgPoolGradBody;
  }
};

}  // namespace

shader::SpatialLimits spatial_limits(const Adapter& adapter, const shader::DeviceLimits& limits) {
  return {limits.max_binding,
          limits.max_groups,
          false,
          shader::tiled_conv_on(adapter.kind.type() == DeviceKind::Type::Cpu),
          true,
          limits.max_loop_turns};
}

ConvPoolKernels make_conv_pool_kernels(const Adapter& adapter, const KernelRunner& runner) {
  return ConvPoolKernels(spatial_limits(adapter, runner.limits()), std::make_unique<WgslSources>(),
                         shader::spatial_dispatch<BufferRange>(runner));
}

}  // namespace ember::wgpu
