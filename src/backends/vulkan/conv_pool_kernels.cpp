#include "backends/vulkan/conv_pool_kernels.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace ember::vulkan {

std::string spatial_header(const std::string& type, const std::string& accumulator,
                           const std::string& workgroup, const std::string& extensions) {
  return "#version 450\n" + extensions +
         "// ember's vulkan convolution, pooling or interpolation\n"
         "#define T " +
         type + "\n#define A " + accumulator + "\nlayout(" + workgroup + ") in;" + R"(
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
// The element this invocation writes: workgroups are numbered y * (workgroups along x) + x.
uint element() {
  return gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u + gl_GlobalInvocationID.x;
}
// e's position (d, h, w) in the spatial extents p[at], p[at + 1], p[at + 2], row-major; rest:
// what is left of e above them (its plane, or its sample and channel).
ivec3 split(uint e, uint at, out uint rest) {
  ivec3 position;
  position.z = int(e % p[at + 2u]);
  e /= p[at + 2u];
  position.y = int(e % p[at + 1u]);
  e /= p[at + 1u];
  position.x = int(e % p[at]);
  rest = e / p[at];
  return position;
}
)";
}

std::string spatial_buffer(int binding, const std::string& access, const std::string& elem,
                           const std::string& name) {
  return "layout(std430, set = 0, binding = " + std::to_string(binding) + ") " + access +
         " buffer B" + std::to_string(binding) + " { " + elem + " " + name + "[]; };\n";
}

namespace {

std::string type_of(DType dtype) {
  return dtype == DType::F64 ? "double" : "float";
}

// Conv (words: conv_passes.h). tap() is ndarray's conv_plan.h: along dim a, output o meets input
// i = o s - p + k d (transposed: o = i s - p + k d, i = (o + p - k d) / s where exact).
constexpr const char* kConvTap = R"(
// The geometry, read from the parameters once (load_geometry) rather than at every tap.
ivec3 stride_of, padding_of, dilation_of, extent_of;
bool transposed_conv;
void load_geometry() {
  stride_of = ivec3(p[15], p[16], p[17]);
  padding_of = ivec3(p[18], p[19], p[20]);
  dilation_of = ivec3(p[21], p[22], p[23]);
  extent_of = ivec3(p[6], p[7], p[8]);
  transposed_conv = p[1] != 0u;
}
int tap(uint a, int o, int k) {
  const int stride = stride_of[a];
  const int padding = padding_of[a];
  const int dilation = dilation_of[a];
  const int extent = extent_of[a];
  if (!transposed_conv) {
    const int i = o * stride - padding + k * dilation;
    return i >= 0 && i < extent ? i : -1;
  }
  const int shifted = o - k * dilation + padding;
  if (shifted < 0 || shifted % stride != 0 || shifted / stride >= extent) return -1;
  return shifted / stride;
}
// Where the terms of output channel oc of group g of sample n start: x0 in x (then in_volume on
// for each input channel), w0 in the weight (then w_step on).
struct Terms {
  uint x0;
  uint in_volume;
  uint w0;
  uint w_step;
};
Terms terms_of(uint n, uint g, uint oc) {
  const uint ipg = p[4];
  const uint opg = p[5];
  const uint in_volume = p[6] * p[7] * p[8];
  const uint kernel_volume = p[12] * p[13] * p[14];
  const uint x0 = (n * p[3] + g) * ipg * in_volume;
  // weight [C_out, C_in / groups, *kernel]; transposed [C_in, C_out / groups, *kernel]
  if (transposed_conv)
    return Terms(x0, in_volume, (g * ipg * opg + oc) * kernel_volume, opg * kernel_volume);
  return Terms(x0, in_volume, (g * opg + oc) * ipg * kernel_volume, kernel_volume);
}
// y[e]: acc, plus output channel c's bias where there is one, rounded to T.
void store(uint e, uint c, A acc) {
#ifdef BIAS
  y[e] = T(A(b[c]) + acc);
#else
  y[e] = T(acc);
#endif
}
)";

// The direct Conv kernel: an invocation an output element.
constexpr const char* kDirectConv = R"(
void main() {
  const uint e = element();
  if (e >= p[0]) return;
  load_geometry();
  uint t;
  const ivec3 o = split(e, 9u, t);
  const uint groups = p[3];
  const uint ipg = p[4];
  const uint opg = p[5];
  const uint c = t % (groups * opg);
  const uint n = t / (groups * opg);
  const uint g = c / opg;
  const uint oc = c - g * opg;
  const Terms terms = terms_of(n, g, oc);
  const ivec3 kernel = ivec3(p[12], p[13], p[14]);
  A acc = A(0);
  for (int kd = 0; kd < kernel.x; ++kd) {
    const int id = tap(0u, o.x, kd);
    if (id < 0) continue;
    for (int kh = 0; kh < kernel.y; ++kh) {
      const int ih = tap(1u, o.y, kh);
      if (ih < 0) continue;
      for (int kw = 0; kw < kernel.z; ++kw) {
        const int iw = tap(2u, o.z, kw);
        if (iw < 0) continue;
        uint xi = terms.x0 + uint((id * extent_of.y + ih) * extent_of.z + iw);
        uint wi = terms.w0 + uint((kd * kernel.y + kh) * kernel.z + kw);
        for (uint ic = 0u; ic < ipg; ++ic) {
          acc = fma(A(x[xi]), A(w[wi]), acc);
          xi += terms.in_volume;
          wi += terms.w_step;
        }
      }
    }
  }
  store(e, c, acc);
}
)";

// The tiled Conv kernel: a workgroup of 16 x 16 writes 16 output channels (rows, y) of a group at
// 16 output positions (columns, x). For each kernel position, each invocation finds its column's
// tap once (a tap in the padding is skipped, as ndarray skips it, not multiplied by 0); then the
// weight's and the gathered patch's terms of 16 input channels at a time are staged through
// shared memory.
constexpr const char* kTiledConv = R"(
shared A weight_tile[16][16];
shared A patch_tile[16][16];
void main() {
  const uint groups = p[3];
  const uint ipg = p[4];
  const uint opg = p[5];
  const uint positions = p[24];
  const uint position_tiles = p[25];
  const uint channel_tiles = p[26];
  const uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (tile >= groups * channel_tiles * position_tiles) return;  // the whole workgroup
  load_geometry();
  const uint g = tile / position_tiles / channel_tiles;
  const uint lx = gl_LocalInvocationID.x;
  const uint ly = gl_LocalInvocationID.y;
  const uint oc = (tile / position_tiles % channel_tiles) * 16u + ly;
  const uint position = tile % position_tiles * 16u + lx;
  uint n;
  const ivec3 o = split(position, 9u, n);
  const Terms terms = terms_of(n, g, oc);
  const uint kh_kw = p[13] * p[14];
  const uint kernel_volume = p[12] * kh_kw;
  A acc = A(0);
  for (uint k = 0u; k < kernel_volume; ++k) {
    // The tap of this invocation's position (its column's) at kernel position k, if inside x.
    int at = -1;
    if (position < positions) {
      const int id = tap(0u, o.x, int(k / kh_kw));
      const int ih = tap(1u, o.y, int(k / p[14] % p[13]));
      const int iw = tap(2u, o.z, int(k % p[14]));
      if (id >= 0 && ih >= 0 && iw >= 0) at = int((uint(id) * p[7] + uint(ih)) * p[8] + uint(iw));
    }
    for (uint c0 = 0u; c0 < ipg; c0 += 16u) {
      weight_tile[ly][lx] =
          oc < opg && c0 + lx < ipg ? A(w[terms.w0 + (c0 + lx) * terms.w_step + k]) : A(0);
      patch_tile[ly][lx] =
          at >= 0 && c0 + ly < ipg ? A(x[terms.x0 + (c0 + ly) * terms.in_volume + uint(at)]) : A(0);
      memoryBarrierShared();
      barrier();
      if (at >= 0) {
        const uint steps = min(16u, ipg - c0);
        for (uint j = 0u; j < steps; ++j) acc = fma(weight_tile[ly][j], patch_tile[j][lx], acc);
      }
      memoryBarrierShared();
      barrier();
    }
  }
  if (oc >= opg || position >= positions) return;
  const uint c = g * opg + oc;
  const uint out_volume = p[9] * p[10] * p[11];
  store((n * groups * opg + c) * out_volume + position % out_volume, c, acc);
}
)";

// ConvWeightGrad (words: conv_passes.h): a workgroup a weight element, its lanes each adding
// rows of (sample, near d, near h) along near w, then the lanes' sums in shared memory.
constexpr const char* kConvWeightGrad = R"(
shared A partial[256];
void main() {
  const uint wi = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (wi >= p[0]) return;  // the whole workgroup: the barriers stay uniform
  const bool transposed = p[1] != 0u;
  const uint groups = p[3];
  const uint ipg = p[4];
  const uint opg = p[5];
  const uint kh_kw = p[13] * p[14];
  const uint kernel_volume = p[12] * kh_kw;
  const uint k = wi % kernel_volume;
  const uint pair = wi / kernel_volume;
  // weight [C_out, C_in / groups, *kernel]; transposed [C_in, C_out / groups, *kernel]
  const uint second = transposed ? opg : ipg;
  const uint first = pair / second;
  const uint g = first / (transposed ? ipg : opg);
  const uint ic = transposed ? first % ipg : pair % second;
  const uint oc = transposed ? pair % second : first % opg;
  // Near position q meets far position q s - p + k d (ndarray's kernel_taps): far = near s + shift.
  const ivec3 stride = ivec3(p[15], p[16], p[17]);
  const ivec3 kernel = ivec3(int(k / kh_kw), int(k / p[14] % p[13]), int(k % p[14]));
  const ivec3 shift = kernel * ivec3(p[21], p[22], p[23]) - ivec3(p[18], p[19], p[20]);
  // The near side: the output's positions (x's, transposed); the far side the other.
  const ivec3 in_extent = ivec3(p[6], p[7], p[8]);
  const ivec3 out_extent = ivec3(p[9], p[10], p[11]);
  const ivec3 near = transposed ? in_extent : out_extent;
  const ivec3 far = transposed ? out_extent : in_extent;
  const uint in_volume = uint(in_extent.x * in_extent.y * in_extent.z);
  const uint out_volume = uint(out_extent.x * out_extent.y * out_extent.z);
  // A lane takes rows (sample, near d, near h) and walks each along w.
  const uint rows = p[2] * uint(near.x * near.y);
  const uint lane = gl_LocalInvocationID.x;
  A acc = A(0);
  for (uint r = lane; r < rows; r += 256u) {
    const int nh = int(r % uint(near.y));
    const uint t = r / uint(near.y);
    const int nd = int(t % uint(near.x));
    const uint n = t / uint(near.x);
    const int fd = nd * stride.x + shift.x;
    const int fh = nh * stride.y + shift.y;
    if (fd < 0 || fd >= far.x || fh < 0 || fh >= far.y) continue;
    const uint near_row = uint((nd * near.y + nh) * near.z);
    const uint far_row = uint((fd * far.y + fh) * far.z);
    const uint x_row =
        ((n * groups + g) * ipg + ic) * in_volume + (transposed ? near_row : far_row);
    const uint g_row =
        ((n * groups + g) * opg + oc) * out_volume + (transposed ? far_row : near_row);
    for (int nw = 0; nw < near.z; ++nw) {
      const int fw = nw * stride.z + shift.z;
      if (fw < 0 || fw >= far.z) continue;
      acc = fma(A(x[x_row + uint(transposed ? nw : fw)]), A(dy[g_row + uint(transposed ? fw : nw)]),
                acc);
    }
  }
  partial[lane] = acc;
  memoryBarrierShared();
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1u) {
    if (lane < s) partial[lane] += partial[lane + s];
    memoryBarrierShared();
    barrier();
  }
  if (lane == 0u) dw[wi] = T(partial[0]);
}
)";

// The windows of pooling (words: pool_passes.h), as ndarray's pool_windows.cpp makes them.
constexpr const char* kWindows = R"(
struct Window { int first; int count; int padded; int step; };
Window window(uint a, int o) {
  const int extent = int(p[5u + a]);
  if (p[1] != 0u) {
    const int out_extent = int(p[8u + a]);
    const int start = o * extent / out_extent;
    const int end = ((o + 1) * extent + out_extent - 1) / out_extent;
    return Window(start, end - start, end - start, 1);
  }
  const int kernel = int(p[11u + a]);
  const int stride = int(p[14u + a]);
  const int padding = int(p[17u + a]);
  const int dilation = int(p[20u + a]);
  const int start = o * stride - padding;
  const int skipped = start < 0 ? (dilation - 1 - start) / dilation : 0;
  const int before_end = (extent - start + dilation - 1) / dilation;
  return Window(start + skipped * dilation, min(kernel, before_end) - skipped,
                min(kernel, extent + padding - start), dilation);
}
A divisor(Window a, Window b, Window c) {
  if (p[3] != 0u) return A(p[3]);
  if (p[2] != 0u) return A(a.padded) * A(b.padded) * A(c.padded);
  return A(a.count) * A(b.count) * A(c.count);
}
)";

// Pool and AdaptivePool: the first maximum (a NaN replaces any value) or the average of a window.
constexpr const char* kPool = R"(
bool is_nan(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }
#ifdef DOUBLES
bool is_nan(double v) {
  const uvec2 u = unpackDouble2x32(v);
  const uint high = u.y & 0x7fffffffu;
  return high > 0x7ff00000u || (high == 0x7ff00000u && u.x != 0u);
}
#endif
void main() {
  const uint e = element();
  if (e >= p[0]) return;
  uint plane;
  const ivec3 o = split(e, 8u, plane);
  const Window a = window(0u, o.x);
  const Window b = window(1u, o.y);
  const Window c = window(2u, o.z);
  const uint base = plane * p[5] * p[6] * p[7];
  int best = -1;
  T best_value = T(0);
  A sum = A(0);
  for (int j = 0; j < a.count * b.count * c.count; ++j) {
    const int i0 = j / (b.count * c.count);
    const int i1 = j / c.count % b.count;
    const int i2 = j % c.count;
    const int at = ((a.first + i0 * a.step) * int(p[6]) + b.first + i1 * b.step) * int(p[7]) +
                   c.first + i2 * c.step;
    const T v = x[base + uint(at)];
#ifdef MAX
    if (best < 0 || is_nan(v) || v > best_value) {
      best = at;
      best_value = v;
    }
#else
    sum += A(v);
#endif
  }
#ifdef MAX
  y[e] = best_value;
  if (p[4] == 2u) {
    index[2u * e] = uint(best);
    index[2u * e + 1u] = 0u;
  } else {
    index[e] = uint(best);
  }
#else
  y[e] = T(sum / divisor(a, b, c));
#endif
}
)";

// AvgPoolGrad and AdaptiveAvgPoolGrad: an input element gathers the shares of the windows that
// hold it, in their row-major order.
constexpr const char* kAvgPoolGrad = R"(
ivec2 candidates(uint a, int i) {
  const int extent = int(p[5u + a]);
  const int out_extent = int(p[8u + a]);
  if (p[1] != 0u)
    return ivec2(i * out_extent / extent, min(out_extent - 1, ((i + 1) * out_extent - 1) / extent));
  const int padding = int(p[17u + a]);
  const int stride = int(p[14u + a]);
  const int reach = i + padding - (int(p[11u + a]) - 1) * int(p[20u + a]);
  const int first = reach <= 0 ? 0 : (reach + stride - 1) / stride;
  return ivec2(first, min(out_extent - 1, (i + padding) / stride));
}
bool holds(Window w, int i) {
  const int offset = i - w.first;
  return offset >= 0 && offset % w.step == 0 && offset / w.step < w.count;
}
void main() {
  const uint e = element();
  if (e >= p[0]) return;
  uint plane;
  const ivec3 i = split(e, 5u, plane);
  const ivec2 ra = candidates(0u, i.x);
  const ivec2 rb = candidates(1u, i.y);
  const ivec2 rc = candidates(2u, i.z);
  const int na = max(ra.y - ra.x + 1, 0);
  const int nb = max(rb.y - rb.x + 1, 0);
  const int nc = max(rc.y - rc.x + 1, 0);
  const uint base = plane * p[8] * p[9] * p[10];
  A sum = A(0);
  for (int j = 0; j < na * nb * nc; ++j) {
    const int o0 = ra.x + j / (nb * nc);
    const int o1 = rb.x + j / nc % nb;
    const int o2 = rc.x + j % nc;
    const Window a = window(0u, o0);
    const Window b = window(1u, o1);
    const Window c = window(2u, o2);
    if (!holds(a, i.x) || !holds(b, i.y) || !holds(c, i.z)) continue;
    sum += A(dy[base + uint((o0 * int(p[9]) + o1) * int(p[10]) + o2)]) / divisor(a, b, c);
  }
  dx[e] = T(sum);
}
)";

class GlslSources final : public shader::ConvPoolSources {
 public:
  explicit GlslSources(bool doubles) : doubles_(doubles) {}

  std::string conv(DType dtype, bool bias, bool tiled) const override {
    const std::string type = type_of(dtype);
    const char* workgroup = tiled ? "local_size_x = 16, local_size_y = 16" : "local_size_x = 256";
    std::string text = spatial_header(type, type, workgroup) +
                       spatial_buffer(1, "readonly", type, "x") +
                       spatial_buffer(2, "readonly", type, "w");
    if (bias) text += "#define BIAS 1\n" + spatial_buffer(3, "readonly", type, "b");
    return text + spatial_buffer(bias ? 4 : 3, "writeonly", type, "y") + kConvTap +
           (tiled ? kTiledConv : kDirectConv);
  }
  std::string conv_weight_grad(DType dtype) const override {
    const std::string type = type_of(dtype);
    return spatial_header(type, type) + spatial_buffer(1, "readonly", type, "x") +
           spatial_buffer(2, "readonly", type, "dy") + spatial_buffer(3, "writeonly", type, "dw") +
           kConvWeightGrad;
  }
  std::string pool(DType dtype, ir::PoolOp op) const override {
    const std::string type = type_of(dtype);
    std::string text = spatial_header(type, average_type(dtype)) +
                       spatial_buffer(1, "readonly", type, "x") +
                       spatial_buffer(2, "writeonly", type, "y");
    if (doubles_) text += "#define DOUBLES 1\n";
    if (op == ir::PoolOp::Max)
      text += "#define MAX 1\n" + spatial_buffer(3, "writeonly", "uint", "index");
    return text + kWindows + kPool;
  }
  std::string avg_pool_grad(DType dtype) const override {
    const std::string type = type_of(dtype);
    return spatial_header(type, average_type(dtype)) + spatial_buffer(1, "readonly", type, "dy") +
           spatial_buffer(2, "writeonly", type, "dx") + kWindows + kAvgPoolGrad;
  }

 private:
  /// Averages add in double where the device has it, as ndarray's do.
  std::string average_type(DType dtype) const { return doubles_ ? "double" : type_of(dtype); }

  bool doubles_;
};

}  // namespace

shader::SpatialLimits spatial_limits(const PhysicalDevice& physical,
                                     const shader::DeviceLimits& limits) {
  const Features& features = physical.features;
  return {limits.max_binding,
          limits.max_groups,
          features.float64,
          shader::tiled_conv_on(physical.kind.type() == DeviceKind::Type::Cpu),
          features.float16 && features.storage16,
          limits.max_loop_turns};
}

ConvPoolKernels make_conv_pool_kernels(const PhysicalDevice& physical, const KernelRunner& runner) {
  return ConvPoolKernels(spatial_limits(physical, runner.limits()),
                         std::make_unique<GlslSources>(physical.features.float64),
                         shader::spatial_dispatch<BufferRange>(runner));
}

}  // namespace ember::vulkan
