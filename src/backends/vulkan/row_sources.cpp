#include "backends/vulkan/row_sources.h"

#include <string>

namespace ember::vulkan {

/// A tensor's binding: a buffer of floats or of words.
std::string declare_row_tensor(uint32_t binding, const shader::RowBinding& tensor) {
  const std::string at = std::to_string(binding);
  return "layout(std430, set = 0, binding = " + at + ") buffer B" + at + " { " +
         (tensor.words ? "uint " : "float ") + tensor.name + "[]; };\n";
}

namespace {

constexpr const char* kHeader = R"(#version 450
// ember's vulkan fused row ops (src/backends/vulkan/row_sources.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
)";

/// The workgroup's trees (a sum of vec4s, a maximum where a NaN wins, as in ndarray's), each
/// result in every invocation.
constexpr const char* kTrees = R"(shared vec4 part[256];
float larger(float a, float b) { return isnan(a) || (!isnan(b) && a >= b) ? a : b; }
vec4 tree_sum(vec4 v) {
  const uint id = gl_LocalInvocationID.x;
  part[id] = v;
  barrier();
  for (uint half_size = 128u; half_size > 0u; half_size >>= 1u) {
    if (id < half_size) part[id] += part[id + half_size];
    barrier();
  }
  const vec4 result = part[0];
  barrier();
  return result;
}
float tree_max(float v) {
  const uint id = gl_LocalInvocationID.x;
  part[id].x = v;
  barrier();
  for (uint half_size = 128u; half_size > 0u; half_size >>= 1u) {
    if (id < half_size) part[id].x = larger(part[id].x, part[id + half_size].x);
    barrier();
  }
  const float result = part[0].x;
  barrier();
  return result;
}
)";

/// The start of every kernel's main: the parameter words it reads by name.
constexpr const char* kMain = R"(void main() {
  const uint n = p[1];
  const bool weighted = (p[3] & 1u) != 0u;
  const bool biased = (p[3] & 2u) != 0u;
  const bool rms = (p[3] & 4u) != 0u;
  const uint id = gl_LocalInvocationID.x;
)";

/// Row r's target: its class in [0, n), -1 for ignore_index, -2 for any other value.
constexpr const char* kTargetOf = R"(int target_of(uint r) {
  const uint words = p[7];
  const uint low = t[r * words];
  const uint high = words == 2u ? t[r * words + 1u] : (int(low) < 0 ? 0xffffffffu : 0u);
  if (low == p[5] && high == p[6]) return -1;
  return high == 0u && low < p[1] ? int(low) : -2;
}
)";

/// mean and variance from sums shifted by the row's first element (no mean for rms; no shift by
/// an infinity, which would make the mean of a row of them NaN rather than ndarray's infinity).
constexpr const char* kLayerNorm =
    R"(  for (uint r = gl_WorkGroupID.x; r < p[0]; r += gl_NumWorkGroups.x) {
    const uint first = r * n;
    const float shift = rms || isinf(x[first]) ? 0.0 : x[first];
    vec4 s = vec4(0.0);
    for (uint k = id; k < n; k += 256u) {
      const float d = x[first + k] - shift;
      s.xy += vec2(d, d * d);
    }
    s = tree_sum(s);
    const float shifted_mean = rms ? 0.0 : s.x / float(n);
    const float m = shift + shifted_mean;
    const float variance = s.y / float(n) - shifted_mean * shifted_mean;
    const float rstd = 1.0 / sqrt(variance + uintBitsToFloat(p[4]));
    for (uint k = id; k < n; k += 256u)
      y[first + k] = (x[first + k] - m) * rstd * (weighted ? w[k] : 1.0) + (biased ? b[k] : 0.0);
    if (id == 0u) {
      if (!rms) mean[r] = m;
      rstd_out[r] = rstd;
    }
  }
}
)";

/// dx = rstd (g - mean(g) - xhat mean(g xhat)), g = grad_y weight (no mean(g) for rms).
constexpr const char* kLayerNormGradRows =
    R"(  for (uint r = gl_WorkGroupID.x; r < p[0]; r += gl_NumWorkGroups.x) {
    const uint first = r * n;
    const float m = rms ? 0.0 : mean[r];
    const float rs = rstd[r];
    vec4 s = vec4(0.0);
    for (uint k = id; k < n; k += 256u) {
      const float g = dy[first + k] * (weighted ? w[k] : 1.0);
      s.xy += vec2(g, g * (x[first + k] - m) * rs);
    }
    s = tree_sum(s);
    const float g_mean = rms ? 0.0 : s.x / float(n);
    const float g_xhat_mean = s.y / float(n);
    for (uint k = id; k < n; k += 256u) {
      const float g = dy[first + k] * (weighted ? w[k] : 1.0);
      dx[first + k] = rs * (g - g_mean - (x[first + k] - m) * rs * g_xhat_mean);
    }
  }
}
)";

/// One invocation a column: the sums over rows of grad_y xhat and of grad_y.
constexpr const char* kLayerNormGradColumns = R"(  const uint rows = p[0];
  for (uint c = gl_GlobalInvocationID.x; c < n; c += gl_NumWorkGroups.x * 256u) {
    float dw_sum = 0.0;
    float db_sum = 0.0;
    for (uint r = 0u; r < rows; ++r) {
      const float g = dy[r * n + c];
      dw_sum += g * (x[r * n + c] - (rms ? 0.0 : mean[r])) * rstd[r];
      db_sum += g;
    }
    if ((p[3] & 1u) != 0u) dw[c] = dw_sum;
    if ((p[3] & 2u) != 0u) db[c] = db_sum;
  }
}
)";

/// lse = m + log sum exp(x - m) (-inf for a row of -inf); the smoothing's sum_c w_c (lse - x_c)
/// as W log(sum) - sum_c w_c (x_c - m).
constexpr const char* kCrossEntropy = R"(  const float smoothing = uintBitsToFloat(p[4]);
  for (uint r = gl_WorkGroupID.x; r < p[0]; r += gl_NumWorkGroups.x) {
    const uint first = r * n;
    float m = uintBitsToFloat(0xff800000u);
    for (uint k = id; k < n; k += 256u) m = larger(m, x[first + k]);
    m = tree_max(m);
    vec4 s = vec4(0.0);
    for (uint k = id; k < n; k += 256u) {
      const float shifted = x[first + k] - m;
      const float wk = weighted ? w[k] : 1.0;
      s.xyz += vec3(exp(shifted), wk * shifted, wk);
    }
    s = tree_sum(s);
    if (id == 0u) {
      const float log_sum = log(s.x);
      const float l = isinf(m) && m < 0.0 ? m : m + log_sum;
      lse[r] = l;
      const int c = target_of(r);
      if (c == -2) bad[0] = 1u;
      float value = 0.0;
      if (c >= 0) {
        value = (1.0 - smoothing) * (weighted ? w[c] : 1.0) * (l - x[first + uint(c)]);
        if (smoothing != 0.0) value += smoothing / float(n) * (s.z * log_sum - s.y);
      }
      loss[r] = value;
    }
  }
}
)";

/// grad_loss ((1 - s) w[t] (p - onehot(t)) + s / C (W p - w)), p = exp(x - lse); 0 for an
/// ignored row.
constexpr const char* kCrossEntropyGrad = R"(  const float smoothing = uintBitsToFloat(p[4]);
  for (uint r = gl_WorkGroupID.x; r < p[0]; r += gl_NumWorkGroups.x) {
    const uint first = r * n;
    float w_share = 0.0;
    for (uint k = id; k < n; k += 256u) w_share += weighted ? w[k] : 1.0;
    const float w_sum = tree_sum(vec4(w_share, 0.0, 0.0, 0.0)).x;
    const int c = target_of(r);
    if (c == -2 && id == 0u) bad[0] = 1u;
    const float picked = c >= 0 ? (1.0 - smoothing) * (weighted ? w[c] : 1.0) : 0.0;
    const float per_class = smoothing / float(n);
    const float l = lse[r];
    const float g = grad[r];
    for (uint k = id; k < n; k += 256u) {
      const float prob = exp(x[first + k] - l);
      const float d = picked * (prob - (int(k) == c ? 1.0 : 0.0)) +
                      per_class * (w_sum * prob - (weighted ? w[k] : 1.0));
      dx[first + k] = c >= 0 ? g * d : 0.0;
    }
  }
}
)";

/// y (grad_y - sum(grad_y y)), or grad_y - exp(y) sum(grad_y) for log-softmax, along lanes
/// strided by inner.
constexpr const char* kSoftmaxGrad = R"(  const uint inner = p[2];
  const bool log_softmax = (p[3] & 8u) != 0u;
  for (uint lane = gl_WorkGroupID.x; lane < p[0]; lane += gl_NumWorkGroups.x) {
    const uint row = lane / inner;
    const uint first = row * n * inner + (lane - row * inner);
    float share = 0.0;
    for (uint k = id; k < n; k += 256u)
      share += log_softmax ? dy[first + k * inner] : dy[first + k * inner] * y[first + k * inner];
    const float sum = tree_sum(vec4(share, 0.0, 0.0, 0.0)).x;
    for (uint k = id; k < n; k += 256u) {
      const uint at = first + k * inner;
      dx[at] = log_softmax ? dy[at] - exp(y[at]) * sum : y[at] * (dy[at] - sum);
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

}  // namespace ember::vulkan
