// Importers of ONNX's Col2Im and MaxUnpool: values added (ember's select_assign) into an image of
// zeros. Col2Im's positions follow from the shapes alone and are computed while the graph is
// built; MaxUnpool's are its indices input (MaxPool's, flat over the whole output).
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// The most entries Col2Im's position tables may have.
constexpr int64_t kMaxPositions = int64_t{1} << 24;

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Steps a multi-index over dims (last fastest); false after the last.
bool advance(std::vector<int64_t>& at, const std::vector<int64_t>& dims) {
  for (std::size_t d = dims.size(); d-- > 0;) {
    if (++at[d] < dims[d]) return true;
    at[d] = 0;
  }
  return false;
}

/// Col2Im's attribute per spatial dim (fallback for each when absent).
std::vector<int64_t> per_dim(const OnnxNode& node, std::string_view name, std::size_t n,
                             int64_t fallback, int64_t minimum) {
  std::vector<int64_t> values = node.attr_ints(name).value_or(std::vector<int64_t>(n, fallback));
  if (values.size() != n) node.fail(name, " has ", values.size(), " values for ", n, " dims");
  for (int64_t v : values) {
    if (v < minimum || v > kMaxPositions) node.fail(name, " holds ", v);
  }
  return values;
}

/// Col2Im: input [N, C * prod(block), L], each column entry (kernel offset o, block b) added to
/// image position b * stride - pad + o * dilation where that lies inside the image.
std::vector<OnnxValue> col2im(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const std::vector<int64_t> image = node.known_ints(1, "image_shape");
  const std::vector<int64_t> block = node.known_ints(2, "block_shape");
  const std::size_t k = image.size();
  if (k == 0 || block.size() != k || x.rank() != 3)
    node.fail("input ", x.shape(), ", image_shape and block_shape of ", k, " and ", block.size());
  const std::vector<int64_t> strides = per_dim(node, "strides", k, 1, 1);
  const std::vector<int64_t> dilations = per_dim(node, "dilations", k, 1, 1);
  const std::vector<int64_t> pads = per_dim(node, "pads", 2 * k, 0, 0);
  std::vector<int64_t> blocks(k);
  for (std::size_t d = 0; d < k; ++d) {
    if (image[d] < 1 || image[d] > kMaxPositions || block[d] < 1 || block[d] > kMaxPositions)
      node.fail("image dim ", image[d], " and block dim ", block[d]);
    const int64_t span = dilations[d] * (block[d] - 1) + 1;
    blocks[d] = (image[d] + pads[d] + pads[d + k] - span) / strides[d] + 1;
    if (blocks[d] < 1) node.fail("no block fits along dim ", d);
  }
  const int64_t kernel = product(block), length = product(blocks);
  const std::vector<int64_t>& xd = x.shape().dims();
  if (kernel * length > kMaxPositions || xd[1] % kernel != 0 || xd[2] != length)
    node.fail("input ", x.shape(), " for ", kernel, " kernel positions and ", length, " blocks");
  // Column entry `source` (kernel offset o, block b: o * length + b) goes to image position to.
  std::vector<int64_t> from, to;
  std::vector<int64_t> o(k, 0);
  int64_t source = 0;
  do {
    std::vector<int64_t> b(k, 0);
    do {
      int64_t dest = 0;
      bool inside = true;
      for (std::size_t d = 0; d < k; ++d) {
        const int64_t at = b[d] * strides[d] - pads[d] + o[d] * dilations[d];
        inside = inside && at >= 0 && at < image[d];
        dest = dest * image[d] + at;
      }
      if (inside) {
        from.push_back(source);
        to.push_back(dest);
      }
      ++source;
    } while (advance(b, blocks));
  } while (advance(o, block));
  const int64_t n = xd[0], channels = xd[1] / kernel, count = static_cast<int64_t>(from.size());
  const TensorHandle columns = ops::reshape(x, {n, channels, kernel * length});
  const auto indices = [&](std::vector<int64_t> values) {
    return constant(node, TensorData(std::move(values), Shape{count}));
  };
  const TensorHandle zeros =
      ops::zeros(Shape{n, channels, product(image)},
                 TensorCreationOptions(node.device()).with_dtype(x.dtype()), TensorKind::Float);
  const TensorHandle sum =
      ops::select_assign(zeros, 2, indices(to), ops::select(columns, 2, indices(from)));
  std::vector<int64_t> out{n, channels};
  out.insert(out.end(), image.begin(), image.end());
  return one(ops::reshape(sum, out));
}

/// MaxUnpool: X's values at their indices (flat over the output MaxPool's geometry gives) in
/// zeros of that shape, then padded with zeros at the end of each dim to output_shape where
/// given, as ONNX's reference. An index listed twice (windows that overlap picked one input)
/// holds the same value each time, so the sum select_assign makes is divided by the count.
std::vector<OnnxValue> max_unpool(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const std::vector<int64_t>& in = x.shape().dims();
  if (in.size() < 3) node.fail("input ", x.shape(), " has no spatial dims");
  const std::size_t k = in.size() - 2;
  const std::optional<std::vector<int64_t>> kernel = node.attr_ints("kernel_shape");
  if (!kernel || kernel->size() != k) node.fail("kernel_shape must hold ", k, " values");
  for (const int64_t size : *kernel) {
    if (size < 1 || size > kMaxPositions) node.fail("kernel_shape holds ", size);
  }
  const std::vector<int64_t> strides = per_dim(node, "strides", k, 1, 1);
  const std::vector<int64_t> pads = per_dim(node, "pads", 2 * k, 0, 0);
  std::vector<int64_t> pooled{in[0], in[1]};
  for (std::size_t d = 0; d < k; ++d)
    pooled.push_back((in[d + 2] - 1) * strides[d] - pads[d] - pads[d + k] + (*kernel)[d]);
  const std::vector<int64_t> out = node.has(2) ? node.known_ints(2, "output_shape") : pooled;
  if (out.size() != in.size()) node.fail("output_shape of ", out.size(), " values");
  for (std::size_t d = 0; d < out.size(); ++d) {
    const bool fits = d < 2 ? out[d] == pooled[d] : out[d] >= pooled[d];
    if (pooled[d] < 1 || !fits || out[d] > kMaxPositions)
      node.fail("dim ", d, ": output ", out[d], " for ", pooled[d], " unpooled");
  }
  const int64_t total = product(pooled);
  if (product(out) > kMaxPositions) node.fail("an output of more than 2^24 entries");
  const TensorHandle where = ops::reshape(ops::cast(node.tensor(1), DType::I64), {-1});
  const TensorHandle values = ops::reshape(x, {-1});
  const TensorHandle zeros = ops::zeros(
      Shape{total}, TensorCreationOptions(node.device()).with_dtype(x.dtype()), TensorKind::Float);
  const TensorHandle sum = ops::select_assign(zeros, 0, where, values);
  const TensorHandle count = ops::select_assign(zeros, 0, where, ops::full_like(values, 1));
  TensorHandle y = ops::reshape(ops::div(sum, ops::clamp_min(count, 1.0)), pooled);
  for (std::size_t d = 2; d < out.size(); ++d)
    y = pad_axis(node, y, static_cast<int64_t>(d), 0, out[d] - pooled[d], 0.0);
  return one(y);
}

}  // namespace

void add_unfold_importers(OnnxImporters& table) {
  table.insert({
      {"Col2Im", col2im},
      {"MaxUnpool", max_unpool},
  });
}

}  // namespace ember::detail
