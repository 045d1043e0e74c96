// Importer of ONNX's DFT: the transform along one axis as matmuls of the signal's real and
// imaginary parts with matrices of cosines and sines, computed in f64 (as ONNX's reference,
// NumPy's FFT, does) and rounded to the input's dtype once at the end. The cost is a matmul of
// the signal's length squared, not an FFT's n log n: fine for the short transforms models take.
#include <cmath>
#include <numbers>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// Which transform, and its sizes: in_length entries of the signal are used (cut or padded
/// with zeros to it), out_length come out.
struct DftPlan {
  bool inverse;
  bool onesided;
  int64_t length;  ///< n, the transform's length
  int64_t in_length;
  int64_t out_length;
};

/// The angle 2 pi j k / n, its product reduced mod n first so that the zeros of sin and cos
/// (j k = 0, n / 2) are exact.
double angle(int64_t j, int64_t k, int64_t n) {
  const int64_t m = (j % n) * (k % n) % n;
  return 2.0 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n);
}

/// A [in_length, out_length] f64 matrix of entry(j, k) (input j, output k).
template <typename Entry>
TensorHandle matrix(const OnnxNode& node, const DftPlan& plan, Entry entry) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(plan.in_length * plan.out_length));
  for (int64_t j = 0; j < plan.in_length; ++j) {
    for (int64_t k = 0; k < plan.out_length; ++k)
      values.push_back(entry(j, k));
  }
  return constant(node, TensorData(std::move(values), Shape{plan.in_length, plan.out_length}));
}

/// The real inverse of a one-sided spectrum (NumPy's irfft): each frequency but 0 and n / 2
/// stands for itself and its conjugate, so counts twice; the imaginary parts of those two are
/// ignored (their sines are zero).
double onesided_weight(int64_t k, int64_t n) {
  return k == 0 || 2 * k == n ? 1.0 : 2.0;
}

/// Forward: sum x e^{-i a}; inverse: sum x e^{+i a} / n. Real part weights (of re, of im) and
/// imaginary part weights (of re, of im) of an entry.
struct Weights {
  double re_re, im_re, re_im, im_im;
};
Weights weights(const DftPlan& plan, int64_t j, int64_t k) {
  const double a = angle(j, k, plan.length), c = std::cos(a), s = std::sin(a);
  if (!plan.inverse) return {c, s, -s, c};
  const double scale =
      (plan.onesided ? onesided_weight(j, plan.length) : 1.0) / static_cast<double>(plan.length);
  return {c * scale, -s * scale, s * scale, c * scale};
}

/// x [..., L] (the signal's axis last) cut or padded with zeros to length.
TensorHandle fitted(const OnnxNode& node, const TensorHandle& x, int64_t length) {
  const int64_t have = x.shape().dims().back();
  return pad_axis(node, x, static_cast<int64_t>(x.rank()) - 1, 0, length - have, 0.0);
}

std::vector<OnnxValue> dft(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const auto rank = static_cast<int64_t>(x.rank());
  const int64_t parts = x.shape().dims().back();
  if (rank < 3 || (parts != 1 && parts != 2))
    node.fail("the signal must be [..., 1] (real) or [..., 2] (complex), got ", x.shape());
  int64_t axis = node.opset() >= 20 ? -2 : node.attr_int("axis", 1);
  if (node.opset() >= 20 && node.has(2))
    axis = static_cast<int64_t>(node.known_scalar(2, "the axis"));
  axis = onnx_axis(node, axis, rank);
  if (axis == rank - 1) node.fail("the axis may not be the last (the real/imaginary) dim");
  DftPlan plan{node.attr_int("inverse", 0) != 0, node.attr_int("onesided", 0) != 0, 0, 0, 0};
  const int64_t size = x.shape().dims()[static_cast<std::size_t>(axis)];
  plan.length = plan.inverse && plan.onesided ? 2 * (size - 1) : size;
  if (node.has(1)) plan.length = static_cast<int64_t>(node.known_scalar(1, "dft_length"));
  if (plan.length < 1) node.fail("dft_length ", plan.length, " must be >= 1");
  if (plan.onesided && !plan.inverse && parts == 2)
    node.fail("a one-sided transform takes a real signal");
  const int64_t half = plan.length / 2 + 1;
  plan.in_length = plan.inverse && plan.onesided ? half : plan.length;
  plan.out_length = !plan.inverse && plan.onesided ? half : plan.length;
  // The signal's axis last, the real/imaginary dim first: [parts, ..., L].
  std::vector<int64_t> order{rank - 1};
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d != axis) order.push_back(d);
  }
  order.push_back(axis);
  const TensorHandle signal =
      fitted(node, ops::permute(ops::cast(x, DType::F64), order), plan.in_length);
  const TensorHandle re = ops::narrow(signal, 0, 0, 1);
  const auto product = [&](const TensorHandle& part, auto pick) {
    return ops::matmul(
        part,
        ops::unsqueeze(
            matrix(node, plan, [&](int64_t j, int64_t k) { return pick(weights(plan, j, k)); }),
            part.rank()));
  };
  TensorHandle out_re = product(re, [](const Weights& w) { return w.re_re; });
  TensorHandle out_im = product(re, [](const Weights& w) { return w.re_im; });
  if (parts == 2) {
    const TensorHandle im = ops::narrow(signal, 0, 1, 1);
    out_re = ops::add(out_re, product(im, [](const Weights& w) { return w.im_re; }));
    out_im = ops::add(out_im, product(im, [](const Weights& w) { return w.im_im; }));
  }
  const bool real_out = plan.inverse && plan.onesided;
  TensorHandle out = real_out ? out_re : ops::cat({out_re, out_im}, 0);
  // Back from [parts, ..., L] to x's order.
  std::vector<int64_t> back(static_cast<std::size_t>(rank));
  for (std::size_t k = 0; k < order.size(); ++k)
    back[static_cast<std::size_t>(order[k])] = static_cast<int64_t>(k);
  return one(ops::cast(ops::permute(out, back), x.dtype()));
}

}  // namespace

void add_dft_importers(OnnxImporters& table) {
  table.insert({{"DFT", dft}});
}

}  // namespace ember::detail
