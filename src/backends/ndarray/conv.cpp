// Convolutions in both directions and their weight gradient, by direct summation over the
// tap tables of conv_plan.h. Products accumulate in compute_t<T> as matmul's do: f64 in double,
// f32/f16/bf16 in float, rounded once to T. Each output element is one sum in a fixed order, so
// results do not depend on anything but the inputs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "backends/ndarray/conv_plan.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"

namespace ember::ndarray {
namespace {

using conv::ConvPlan;
using conv::kSpatialDims;
using conv::Tap;
using conv::TapTables;

/// Calls f(d, h, w) for every point of a box of extents, in row-major order.
template <typename F>
void for_each_point(const std::array<int64_t, kSpatialDims>& extents, F&& f) {
  for (int64_t d = 0; d < extents[0]; ++d)
    for (int64_t h = 0; h < extents[1]; ++h)
      for (int64_t w = 0; w < extents[2]; ++w)
        f(d, h, w);
}

/// The rows of the three tables at one point (an output position or a kernel position).
struct TapRows {
  std::span<const Tap> d, h, w;
  TapRows(const TapTables& tables, int64_t id, int64_t ih, int64_t iw)
      : d(tables[0].row(id)), h(tables[1].row(ih)), w(tables[2].row(iw)) {}
};

/// The tensors of a convolution (bias may be null).
template <typename T>
struct ConvData {
  const T* x;
  const T* weight;
  const T* bias;
  T* out;
};

/// The sum over the taps and the input channels of x * weight for one output position. The
/// channel loop is innermost: it is the long one when the kernel is small (3x3 taps, tens of
/// channels), and each tap's offsets are then added once for all channels.
template <typename T>
compute_t<T> dot_over_taps_and_channels(const ConvPlan& plan, const T* x, const T* weight,
                                        const TapRows& rows) {
  const int64_t weight_step = plan.weight_in_channel_step();
  compute_t<T> acc{};
  for (const Tap& td : rows.d) {
    for (const Tap& th : rows.h) {
      for (const Tap& tw : rows.w) {
        const T* x_tap = x + td.first + th.first + tw.first;
        const T* weight_tap = weight + td.second + th.second + tw.second;
        for (int64_t ic = 0; ic < plan.in_per_group; ++ic)
          acc += load(x_tap[ic * plan.in_volume]) * load(weight_tap[ic * weight_step]);
      }
    }
  }
  return acc;
}

/// Output channel oc of group g of sample n: at each position, bias plus the sum over the taps
/// and the group's input channels.
template <typename T>
void convolve_channel(const ConvPlan& plan, const TapTables& taps, const ConvData<T>& data,
                      int64_t n, int64_t g, int64_t oc) {
  const compute_t<T> bias =
      data.bias ? load(data.bias[g * plan.out_per_group + oc]) : compute_t<T>{};
  const T* x = data.x + plan.x_offset(n, g, 0);
  const T* weight = data.weight + plan.weight_offset(g, 0, oc);
  T* out = data.out + plan.out_offset(n, g, oc);
  for_each_point(plan.out_extents(), [&](int64_t od, int64_t oh, int64_t ow) {
    *out++ =
        store<T>(bias + dot_over_taps_and_channels(plan, x, weight, TapRows(taps, od, oh, ow)));
  });
}

template <typename T>
void convolve(const ConvPlan& plan, const ConvData<T>& data) {
  const TapTables taps = conv::output_taps(plan);
  for (int64_t n = 0; n < plan.batch; ++n) {
    for (int64_t g = 0; g < plan.groups; ++g) {
      for (int64_t oc = 0; oc < plan.out_per_group; ++oc)
        convolve_channel(plan, taps, data, n, g, oc);
    }
  }
}

/// out[n, c, ...] = bias[c]: the convolution of an empty x or weight (no products to sum).
template <typename T>
void fill_with_bias(const ConvPlan& plan, const T* bias, std::span<T> out) {
  const auto volume = static_cast<std::size_t>(plan.out_volume);
  const auto channels = static_cast<std::size_t>(plan.groups * plan.out_per_group);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = bias[i / volume % channels];
}

/// The sum over the taps of x[first offset] * grad_output[second offset] for one kernel
/// position of one sample.
template <typename T>
compute_t<T> dot_over_taps(const T* x, const T* grad_output, const TapRows& rows) {
  compute_t<T> acc{};
  for (const Tap& td : rows.d) {
    for (const Tap& th : rows.h) {
      const T* x_row = x + td.first + th.first;
      const T* grad_row = grad_output + td.second + th.second;
      for (const Tap& tw : rows.w)
        acc += load(x_row[tw.first]) * load(grad_row[tw.second]);
    }
  }
  return acc;
}

/// The tensors of a weight gradient.
template <typename T>
struct WeightGradData {
  const T* x;
  const T* grad_output;
  T* weight_grad;
};

/// The gradient of the kernel linking input channel ic to output channel oc of group g: at each
/// kernel position, the sum over samples and taps of x * grad_output.
template <typename T>
void kernel_gradient(const ConvPlan& plan, const TapTables& taps, const WeightGradData<T>& data,
                     int64_t g, int64_t ic, int64_t oc) {
  T* kernel = data.weight_grad + plan.weight_offset(g, ic, oc);
  for_each_point(plan.kernel_extents(), [&](int64_t kd, int64_t kh, int64_t kw) {
    const TapRows rows(taps, kd, kh, kw);
    compute_t<T> acc{};
    for (int64_t n = 0; n < plan.batch; ++n) {
      acc += dot_over_taps(data.x + plan.x_offset(n, g, ic),
                           data.grad_output + plan.out_offset(n, g, oc), rows);
    }
    kernel[plan.kernel_offset(kd, kh, kw)] = store<T>(acc);
  });
}

template <typename T>
void weight_gradient(const ConvPlan& plan, const WeightGradData<T>& data) {
  const TapTables taps = conv::kernel_taps(plan);
  for (int64_t g = 0; g < plan.groups; ++g) {
    for (int64_t ic = 0; ic < plan.in_per_group; ++ic) {
      for (int64_t oc = 0; oc < plan.out_per_group; ++oc)
        kernel_gradient(plan, taps, data, g, ic, oc);
    }
  }
}

/// Runs body<T>() for x's dtype, which ir::infer restricts to floats.
template <typename Body>
void visit_float(const ir::Op& op, DType dtype, Body&& body) {
  visit_dtype(dtype, [&]<typename T>() {
    if constexpr (is_float_v<T>) {
      body.template operator()<T>();
    } else {
      throw_unsupported(op, dtype_of<T>());
    }
  });
}

}  // namespace

TensorData run(const ir::Conv& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const TensorData& weight = *in[1];
  const TensorData* bias = in.size() > 2 ? in[2] : nullptr;
  TensorData result = zeros_like(out[0]);
  // Nothing to compute for an empty output, whose spatial extents may be huge.
  if (result.num_elements() == 0) return result;
  const ConvPlan plan = ConvPlan::make(op.geometry, x.shape(), weight.shape(), out[0].shape);
  // With an empty x or weight no product exists (and the kernel or input extents, which the
  // tap tables walk, may be huge).
  const bool has_products = x.num_elements() > 0 && weight.num_elements() > 0;
  visit_float(op, x.dtype(), [&]<typename T>() {
    const T* bias_data = bias ? bias->as<T>().data() : nullptr;
    if (has_products) {
      convolve(plan, ConvData<T>{x.as<T>().data(), weight.as<T>().data(), bias_data,
                                 result.as_mut<T>().data()});
    } else if (bias_data) {
      fill_with_bias(plan, bias_data, result.as_mut<T>());
    }
  });
  return result;
}

TensorData run(const ir::ConvWeightGrad& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const TensorData& grad_output = *in[1];
  TensorData result = zeros_like(out[0]);
  // Without a product the gradient is zero (and the extents of an empty operand may be huge).
  if (result.num_elements() == 0 || x.num_elements() == 0 || grad_output.num_elements() == 0) {
    return result;
  }
  const ConvPlan plan =
      ConvPlan::make(op.geometry, x.shape(), op.weight_shape, grad_output.shape());
  visit_float(op, x.dtype(), [&]<typename T>() {
    weight_gradient(plan, WeightGradData<T>{x.as<T>().data(), grad_output.as<T>().data(),
                                            result.as_mut<T>().data()});
  });
  return result;
}

}  // namespace ember::ndarray
