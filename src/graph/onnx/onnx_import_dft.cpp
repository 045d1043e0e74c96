// Importers of ONNX's DFT and STFT (frames of the signal, windowed, then DFT's transform): the
// transform along one axis as matmuls of the signal's real and imaginary parts with matrices of
// cosines and sines, computed in f64 (as ONNX's reference, NumPy's FFT, does) and rounded to the
// input's dtype once at the end. The cost is a matmul of the signal's length squared, not an FFT's
// n log n: fine for the short transforms models take.
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

/// The most entries a transform's matrices may have.
constexpr int64_t kMaxEntries = int64_t{1} << 24;

/// x [..., parts] (parts 1: real, 2: complex) transformed along axis by plan, in x's dtype.
TensorHandle transform(const OnnxNode& node, const TensorHandle& x, int64_t axis,
                       const DftPlan& plan) {
  const auto rank = static_cast<int64_t>(x.rank());
  const int64_t parts = x.shape().dims().back();
  if (plan.in_length * plan.out_length > kMaxEntries)
    node.fail("a transform of ", plan.length, " entries (matrices of at most 2^24 entries)");
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
  return ops::cast(ops::permute(out, back), x.dtype());
}

/// The lengths of a transform of n entries: the input's and the output's.
DftPlan plan_of(const OnnxNode& node, bool inverse, bool onesided, int64_t length) {
  if (length < 1 || length > kMaxEntries) node.fail("a transform of length ", length);
  const int64_t half = length / 2 + 1;
  return {inverse, onesided, length, inverse && onesided ? half : length,
          !inverse && onesided ? half : length};
}

/// x's last dim: 1 (real) or 2 (complex).
void check_signal(const OnnxNode& node, const TensorHandle& x) {
  const int64_t parts = x.shape().dims().back();
  if (x.rank() < 3 || (parts != 1 && parts != 2))
    node.fail("the signal must be [..., 1] (real) or [..., 2] (complex), got ", x.shape());
}

std::vector<OnnxValue> dft(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  check_signal(node, x);
  const auto rank = static_cast<int64_t>(x.rank());
  int64_t axis = node.opset() >= 20 ? -2 : node.attr_int("axis", 1);
  if (node.opset() >= 20 && node.has(2))
    axis = static_cast<int64_t>(node.known_scalar(2, "the axis"));
  axis = onnx_axis(node, axis, rank);
  if (axis == rank - 1) node.fail("the axis may not be the last (the real/imaginary) dim");
  const bool inverse = node.attr_int("inverse", 0) != 0;
  const bool onesided = node.attr_int("onesided", 0) != 0;
  const int64_t size = x.shape().dims()[static_cast<std::size_t>(axis)];
  int64_t length = inverse && onesided ? 2 * (size - 1) : size;
  if (node.has(1)) length = static_cast<int64_t>(node.known_scalar(1, "dft_length"));
  if (onesided && !inverse && x.shape().dims().back() == 2)
    node.fail("a one-sided transform takes a real signal");
  return one(transform(node, x, axis, plan_of(node, inverse, onesided, length)));
}

/// STFT: the signal [B, L, parts] cut into frames of the window's size every frame_step,
/// each weighted by the window (ones when absent) and transformed (one-sided by default) with
/// frame_length points: [B, frames, bins, 2].
std::vector<OnnxValue> stft(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  check_signal(node, x);
  if (x.rank() != 3) node.fail("the signal must be [B, L, 1 or 2], got ", x.shape());
  const int64_t step = static_cast<int64_t>(node.known_scalar(1, "frame_step"));
  const int64_t samples = x.shape().dims()[1];
  int64_t length = samples;
  if (node.has(2)) length = node.tensor(2).shape().num_elements();
  if (node.has(3)) length = static_cast<int64_t>(node.known_scalar(3, "frame_length"));
  const int64_t size = node.has(2) ? node.tensor(2).shape().num_elements() : length;
  if (step < 1 || size < 1 || size > samples || length < 1)
    node.fail("frame_step ", step, " and frames of ", size, " over ", samples, " samples");
  const int64_t frames = 1 + (samples - size) / step;
  if (frames * size > kMaxEntries) node.fail(frames, " frames of ", size);
  std::vector<int64_t> positions;
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t i = 0; i < size; ++i)
      positions.push_back(f * step + i);
  }
  const int64_t b = x.shape().dims()[0], parts = x.shape().dims()[2];
  TensorHandle framed = ops::reshape(
      ops::select(x, 1, constant(node, TensorData(std::move(positions), Shape{frames * size}))),
      {b, frames, size, parts});
  if (node.has(2))
    framed = ops::mul(framed, ops::reshape(ops::cast(node.tensor(2), x.dtype()), {1, 1, size, 1}));
  const bool onesided = node.attr_int("onesided", 1) != 0;
  if (onesided && parts == 2) node.fail("a one-sided transform takes a real signal");
  return one(transform(node, framed, 2, plan_of(node, false, onesided, length)));
}

}  // namespace

void add_dft_importers(OnnxImporters& table) {
  table.insert({
      {"DFT", dft},
      {"STFT", stft},
  });
}

}  // namespace ember::detail
