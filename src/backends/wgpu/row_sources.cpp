#include "backends/wgpu/row_sources.h"

#include <string>

namespace ember::wgpu {

/// A tensor's binding: an array of f32 or of words.
std::string declare_row_tensor(uint32_t binding, const shader::RowBinding& tensor) {
  return "@group(0) @binding(" + std::to_string(binding) + ") var<storage, read_write> " +
         tensor.name + ": array<" + (tensor.words ? "u32" : "f32") + ">;\n";
}

namespace {

constexpr const char* kHeader = R"(// ember's wgpu fused row ops (src/backends/wgpu/row_sources.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
)";

/// The workgroup's trees (a sum of vec4s, a maximum where a NaN wins, as in ndarray's; a bit
/// test, as the compiler may assume no NaN of a comparison), each result in every invocation.
constexpr const char* kTrees = R"(var<workgroup> part: array<vec4<f32>, 256>;
fn is_nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
fn larger(a: f32, b: f32) -> f32 { return select(b, a, is_nan(a) || (!is_nan(b) && a >= b)); }
fn tree_sum(id: u32, v: vec4<f32>) -> vec4<f32> {
  part[id] = v;
  workgroupBarrier();
  for (var half_size = 128u; half_size > 0u; half_size = half_size >> 1u) {
    if (id < half_size) { part[id] += part[id + half_size]; }
    workgroupBarrier();
  }
  let result = part[0];
  workgroupBarrier();
  return result;
}
fn tree_max(id: u32, v: f32) -> f32 {
  part[id].x = v;
  workgroupBarrier();
  for (var half_size = 128u; half_size > 0u; half_size = half_size >> 1u) {
    if (id < half_size) { part[id].x = larger(part[id].x, part[id + half_size].x); }
    workgroupBarrier();
  }
  let result = part[0].x;
  workgroupBarrier();
  return result;
}
)";

constexpr const char* kMain = R"(@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) local: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>,
        @builtin(global_invocation_id) global: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let id = local.x;
  let n = p[1];
  let weighted = (p[3] & 1u) != 0u;
  let biased = (p[3] & 2u) != 0u;
  let rms = (p[3] & 4u) != 0u;
)";

/// Row r's target: its class in [0, n), -1 for ignore_index, -2 for any other value.
constexpr const char* kTargetOf = R"(fn target_of(r: u32) -> i32 {
  let words = p[7];
  let low = t[r * words];
  let high = select(select(0u, 0xffffffffu, i32(low) < 0), t[r * words + 1u], words == 2u);
  if (low == p[5] && high == p[6]) { return -1; }
  return select(-2, i32(low), high == 0u && low < p[1]);
}
)";

/// mean and variance from sums shifted by the row's first element (no mean for rms; no shift by
/// an infinity, which would make the mean of a row of them NaN rather than ndarray's infinity).
constexpr const char* kLayerNorm = R"(  for (var r = group.x; r < p[0]; r += groups.x) {
    let first = r * n;
    let first_is_inf = (bitcast<u32>(x[first]) & 0x7fffffffu) == 0x7f800000u;
    let shift = select(x[first], 0.0f, rms || first_is_inf);
    var s = vec4<f32>(0.0f);
    for (var k = id; k < n; k += 256u) {
      let d = x[first + k] - shift;
      s += vec4<f32>(d, d * d, 0.0f, 0.0f);
    }
    s = tree_sum(id, s);
    let shifted_mean = select(s.x / f32(n), 0.0f, rms);
    let m = shift + shifted_mean;
    let variance = s.y / f32(n) - shifted_mean * shifted_mean;
    let rstd = 1.0f / sqrt(variance + bitcast<f32>(p[4]));
    for (var k = id; k < n; k += 256u) {
      let scaled = (x[first + k] - m) * rstd * select(1.0f, w[k], weighted);
      y[first + k] = scaled + select(0.0f, b[k], biased);
    }
    if (id == 0u) {
      if (!rms) { mean[r] = m; }
      rstd_out[r] = rstd;
    }
  }
}
)";

/// dx = rstd (g - mean(g) - xhat mean(g xhat)), g = grad_y weight (no mean(g) for rms).
constexpr const char* kLayerNormGradRows = R"(  for (var r = group.x; r < p[0]; r += groups.x) {
    let first = r * n;
    let m = select(mean[r], 0.0f, rms);
    let rs = rstd[r];
    var s = vec4<f32>(0.0f);
    for (var k = id; k < n; k += 256u) {
      let g = dy[first + k] * select(1.0f, w[k], weighted);
      s += vec4<f32>(g, g * (x[first + k] - m) * rs, 0.0f, 0.0f);
    }
    s = tree_sum(id, s);
    let g_mean = select(s.x / f32(n), 0.0f, rms);
    let g_xhat_mean = s.y / f32(n);
    for (var k = id; k < n; k += 256u) {
      let g = dy[first + k] * select(1.0f, w[k], weighted);
      dx[first + k] = rs * (g - g_mean - (x[first + k] - m) * rs * g_xhat_mean);
    }
  }
}
)";

/// One invocation a column: the sums over rows of grad_y xhat and of grad_y.
constexpr const char* kLayerNormGradColumns = R"(  let rows = p[0];
  for (var c = global.x; c < n; c += groups.x * 256u) {
    var dw_sum = 0.0f;
    var db_sum = 0.0f;
    for (var r = 0u; r < rows; r++) {
      let g = dy[r * n + c];
      dw_sum += g * (x[r * n + c] - select(mean[r], 0.0f, rms)) * rstd[r];
      db_sum += g;
    }
    if (weighted) { dw[c] = dw_sum; }
    if (biased) { db[c] = db_sum; }
  }
}
)";

/// lse = m + log sum exp(x - m) (-inf for a row of -inf); the smoothing's sum_c w_c (lse - x_c)
/// as W log(sum) - sum_c w_c (x_c - m).
constexpr const char* kCrossEntropy = R"(  let smoothing = bitcast<f32>(p[4]);
  for (var r = group.x; r < p[0]; r += groups.x) {
    let first = r * n;
    var m = bitcast<f32>(0xff800000u);
    for (var k = id; k < n; k += 256u) { m = larger(m, x[first + k]); }
    m = tree_max(id, m);
    var s = vec4<f32>(0.0f);
    for (var k = id; k < n; k += 256u) {
      let shifted = x[first + k] - m;
      let wk = select(1.0f, w[k], weighted);
      s += vec4<f32>(exp(shifted), wk * shifted, wk, 0.0f);
    }
    s = tree_sum(id, s);
    if (id == 0u) {
      let log_sum = log(s.x);
      let l = select(m + log_sum, m, bitcast<u32>(m) == 0xff800000u);
      lse[r] = l;
      let c = target_of(r);
      if (c == -2) { bad[0] = 1u; }
      var value = 0.0f;
      if (c >= 0) {
        value = (1.0f - smoothing) * select(1.0f, w[u32(c)], weighted) * (l - x[first + u32(c)]);
        if (smoothing != 0.0f) { value += smoothing / f32(n) * (s.z * log_sum - s.y); }
      }
      loss[r] = value;
    }
  }
}
)";

/// grad_loss ((1 - s) w[t] (p - onehot(t)) + s / C (W p - w)), p = exp(x - lse); 0 for an
/// ignored row.
constexpr const char* kCrossEntropyGrad = R"(  let smoothing = bitcast<f32>(p[4]);
  for (var r = group.x; r < p[0]; r += groups.x) {
    let first = r * n;
    var w_share = 0.0f;
    for (var k = id; k < n; k += 256u) { w_share += select(1.0f, w[k], weighted); }
    let w_sum = tree_sum(id, vec4<f32>(w_share, 0.0f, 0.0f, 0.0f)).x;
    let c = target_of(r);
    if (c == -2 && id == 0u) { bad[0] = 1u; }
    let target_weight = select(1.0f, w[u32(max(c, 0))], weighted);
    let picked = select(0.0f, (1.0f - smoothing) * target_weight, c >= 0);
    let per_class = smoothing / f32(n);
    let l = lse[r];
    let g = grad[r];
    for (var k = id; k < n; k += 256u) {
      let prob = exp(x[first + k] - l);
      let d = picked * (prob - select(0.0f, 1.0f, i32(k) == c)) +
              per_class * (w_sum * prob - select(1.0f, w[k], weighted));
      dx[first + k] = select(0.0f, g * d, c >= 0);
    }
  }
}
)";

/// y (grad_y - sum(grad_y y)), or grad_y - exp(y) sum(grad_y) for log-softmax, along lanes
/// strided by inner.
constexpr const char* kSoftmaxGrad = R"(  let inner = p[2];
  let log_softmax = (p[3] & 8u) != 0u;
  for (var lane = group.x; lane < p[0]; lane += groups.x) {
    let row = lane / inner;
    let first = row * n * inner + (lane - row * inner);
    var share = 0.0f;
    for (var k = id; k < n; k += 256u) {
      let at = first + k * inner;
      share += select(dy[at] * y[at], dy[at], log_softmax);
    }
    let sum = tree_sum(id, vec4<f32>(share, 0.0f, 0.0f, 0.0f)).x;
    for (var k = id; k < n; k += 256u) {
      let at = first + k * inner;
      dx[at] = select(y[at] * (dy[at] - sum), dy[at] - exp(y[at]) * sum, log_softmax);
    }
  }
}
)";

constexpr shader::RowSources kSources = {kHeader,
                                         kTrees,
                                         kTargetOf,
                                         kMain,
                                         {kLayerNorm, kLayerNormGradRows, kLayerNormGradColumns,
                                          kCrossEntropy, kCrossEntropyGrad, kSoftmaxGrad}};

}  // namespace

shader::RowSources row_sources() {
  return kSources;
}

}  // namespace ember::wgpu
