// Importers of ONNX's ops built from positions: Trilu, EyeLike, OneHot, Hardmax, and
// ScatterElements (whose indices may count from the end) and TensorScatter (a cache update).
#include "graph/onnx/onnx_import_util.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {
namespace {

/// Bool [rows, cols]: column - row compared with k (>= for the upper triangle, <= for the
/// lower, == for the diagonal of EyeLike).
TensorHandle diagonal_mask(const OnnxNode& node, int64_t rows, int64_t cols, int64_t k,
                           int direction) {
  const TensorHandle offset =
      ops::sub(positions(node, cols, 2, 1), positions(node, rows, 2, 0));  // [rows, cols]
  if (direction > 0) return ops::greater_equal_elem(offset, k);
  if (direction < 0) return ops::lower_equal_elem(offset, k);
  return ops::equal_elem(offset, k);
}

/// Trilu: the upper (or lower) triangle of the last two dims from diagonal k, zeros elsewhere.
std::vector<OnnxValue> trilu(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (onnx_rank(node.input(0)) < 2) node.fail("input must have rank 2 or more");
  int64_t k = 0;
  if (node.has(1)) {
    const std::vector<int64_t> given = node.known_ints(1, "k");
    if (given.size() != 1) node.fail("k holds ", given.size(), " values");
    k = given[0];
  }
  const auto& dims = x.shape().dims();
  const int64_t rows = dims[dims.size() - 2];
  const int64_t cols = dims.back();
  k = std::clamp<int64_t>(k, -rows - 1, cols + 1);  // beyond either corner: all or nothing
  const bool upper = node.attr_int("upper", 1) != 0;
  const TensorHandle keep = diagonal_mask(node, rows, cols, k, upper ? 1 : -1);
  return one(ops::mask_fill(x, ops::bool_not(keep), 0));
}

/// EyeLike: ones on diagonal k of a matrix of the input's shape, of dtype (else the input's).
std::vector<OnnxValue> eye_like(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (onnx_rank(node.input(0)) != 2) node.fail("input must have rank 2, got ", x.shape());
  DType dtype = x.dtype();
  if (auto given = node.attr_int("dtype")) {
    const std::optional<DType> d = dtype_of_onnx(static_cast<int32_t>(*given));
    if (!d) node.fail("dtype ", onnx_type_name(static_cast<int32_t>(*given)), ", no ember dtype");
    dtype = *d;
  }
  const int64_t k =
      std::clamp<int64_t>(node.attr_int("k", 0), -x.shape().dims()[0] - 1, x.shape().dims()[1] + 1);
  return one(ops::cast(diagonal_mask(node, x.shape().dims()[0], x.shape().dims()[1], k, 0), dtype));
}

/// Whether each position along axis (of size n) equals index, index broadcast along axis.
TensorHandle is_position(const OnnxNode& node, const TensorHandle& index, int64_t n, int64_t axis) {
  return ops::equal(positions(node, n, static_cast<int64_t>(index.rank()), axis), index);
}

/// OneHot: values[1] where the position along the new axis is the index (from the end where
/// negative), values[0] elsewhere.
std::vector<OnnxValue> one_hot(const OnnxNode& node) {
  const OnnxValue& indices = node.input(0);
  const TensorData depth_data = node.known(1, "depth");
  if (depth_data.num_elements() != 1)
    node.fail("depth holds ", depth_data.num_elements(), " values");
  const auto depth = static_cast<int64_t>(depth_data.to_vector<double>()[0]);
  if (depth < 1 || depth > (int64_t{1} << 31)) node.fail("depth ", depth);
  const int64_t rank = onnx_rank(indices) + 1;
  const int64_t axis = onnx_axis(node, node.attr_int("axis", -1), rank);
  TensorHandle index = ops::cast(indices.tensor, DType::I64);
  index = ops::where(ops::lower_elem(index, 0), ops::add_scalar(index, depth), index);
  std::vector<int64_t> dims = onnx_dims(indices);
  dims.insert(dims.begin() + axis, 1);
  const TensorHandle hot = is_position(node, ops::reshape(index, dims), depth, axis);
  const TensorHandle& values = node.tensor(2);
  if (values.shape().num_elements() != 2) node.fail("values holds ", values.shape(), ", not 2");
  const TensorHandle off = ops::narrow(ops::reshape(values, {2}), 0, 0, 1);
  const TensorHandle on = ops::narrow(ops::reshape(values, {2}), 0, 1, 1);
  return one(ops::where(hot, on, off));
}

/// Hardmax: 1 at the first maximum along axis, 0 elsewhere.
std::vector<OnnxValue> hardmax(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const int64_t rank = onnx_rank(node.input(0));
  const int64_t axis = onnx_axis(node, node.attr_int("axis", -1), rank);
  std::vector<int64_t> kept = x.shape().dims();
  kept[static_cast<std::size_t>(axis)] = 1;
  const TensorHandle index = ops::reshape(ops::argmax(x, axis), kept);
  const TensorHandle hot =
      is_position(node, index, x.shape().dims()[static_cast<std::size_t>(axis)], axis);
  return one(ops::cast(hot, x.dtype()));
}

/// The flat position in data of each entry of index (ScatterElements' indices, made
/// non-negative): its own position, with its coordinate along axis replaced by its value.
TensorHandle flat_targets(const OnnxNode& node, const TensorHandle& data, int64_t axis,
                          const TensorHandle& index) {
  const std::vector<int64_t>& dims = index.shape().dims();
  const auto rank = static_cast<int64_t>(dims.size());
  TensorHandle flat = ops::zeros(
      index.shape(), TensorCreationOptions(node.device()).with_dtype(DType::I64), TensorKind::Int);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = data.shape().dims()[static_cast<std::size_t>(d)];
    const TensorHandle coordinate =
        d == axis ? index : positions(node, dims[static_cast<std::size_t>(d)], rank, d);
    flat = ops::add(ops::mul_scalar(flat, size), coordinate);
  }
  return ops::reshape(flat, {index.shape().num_elements()});
}

/// ScatterElements: data with updates written at indices along axis (reduction none, the
/// indices unique as ONNX requires), added to it (add) or combined by mul, max or min.///
/// ScatterElements: data with updates written at indices along axis (reduction none, the indices
/// unique as ONNX requires) or added to it (add).
std::vector<OnnxValue> scatter_elements(const OnnxNode& node) {
  const TensorHandle& data = node.tensor(0);
  const int64_t axis = onnx_axis(node, node.attr_int("axis", 0), onnx_rank(node.input(0)));
  const std::string reduction = node.attr_string("reduction", "none");
  const int64_t size = data.shape().dims()[static_cast<std::size_t>(axis)];
  TensorHandle index = node.tensor(1);
  index = ops::where(ops::lower_elem(index, 0), ops::add_scalar(index, size), index);
  const TensorHandle& updates = node.tensor(2);
  if (reduction == "add") return one(ops::scatter(data, axis, index, updates));
  if (reduction != "none") {
    const TensorHandle reduced =
        scatter_reduce(node, ops::reshape(data, {data.shape().num_elements(), 1}),
                       flat_targets(node, data, axis, ops::cast(index, DType::I64)),
                       ops::reshape(updates, {updates.shape().num_elements(), 1}), reduction);
    return one(ops::reshape(reduced, data.shape().dims()));
  }
  // Written entries: cleared, then the updates added there.
  const TensorHandle written = ops::greater_elem(
      ops::scatter(
          ops::zeros(data.shape(), TensorCreationOptions(node.device()).with_dtype(DType::I64),
                     TensorKind::Int),
          axis, index, ops::full_like(ops::cast(updates, DType::I64), 1)),
      0);
  return one(ops::scatter(ops::mask_fill(data, written, 0), axis, index, updates));
}

/// TensorScatter (a key/value cache update): update written into past_cache along axis from
/// write_indices[b] on for each batch b (wrapping around the cache in circular mode); the
/// written entries are cleared, then scatter adds the update there.
std::vector<OnnxValue> tensor_scatter(const OnnxNode& node) {
  const TensorHandle& cache = node.tensor(0);
  const TensorHandle& update = node.tensor(1);
  const auto rank = static_cast<int64_t>(cache.rank());
  const int64_t axis = onnx_axis(node, node.attr_int("axis", -2), rank);
  const std::string mode = node.attr_string("mode", "linear");
  if (mode != "linear" && mode != "circular") node.fail("mode '", mode, "' (linear, circular)");
  const std::vector<int64_t>& cd = cache.shape().dims();
  const std::vector<int64_t>& ud = update.shape().dims();
  const int64_t size = cd[static_cast<std::size_t>(axis)];
  bool fits = ud.size() == cd.size() && axis > 0;
  for (std::size_t d = 0; fits && d < cd.size(); ++d)
    fits = static_cast<int64_t>(d) == axis ? ud[d] <= size : ud[d] == cd[d];
  if (!fits) node.fail("update ", update.shape(), " does not fit past_cache ", cache.shape());
  const TensorCreationOptions i64 = TensorCreationOptions(node.device()).with_dtype(DType::I64);
  TensorHandle start = node.has(2) ? ops::cast(node.tensor(2), DType::I64)
                                   : ops::zeros(Shape{cd[0]}, i64, TensorKind::Int);
  if (start.shape().num_elements() != cd[0])
    node.fail("write_indices ", start.shape(), " for a batch of ", cd[0]);
  start = ops::reshape(start, positions_shape(rank, 0, cd[0]));
  TensorHandle index =
      ops::add(start, positions(node, ud[static_cast<std::size_t>(axis)], rank, axis));
  if (mode == "circular") index = ops::remainder_scalar(index, size);
  index = ops::expand(index, ud);
  const TensorHandle written =
      ops::greater_elem(ops::scatter(ops::zeros(cache.shape(), i64, TensorKind::Int), axis, index,
                                     ops::full_like(index, 1)),
                        0);
  return one(ops::scatter(ops::mask_fill(cache, written, 0), axis, index, update));
}

/// NonZero: the positions of x's non-zero entries, [rank, count] in row-major order; x must be
/// known (its count fixes the output's shape).
std::vector<OnnxValue> non_zero(const OnnxNode& node) {
  const TensorData x = node.known(0, "X");
  const std::vector<double> values = x.to_vector<double>();
  const std::vector<int64_t> dims = x.shape().dims();
  const std::size_t rank = dims.size();
  std::vector<std::vector<int64_t>> rows(rank);
  std::vector<int64_t> index(rank, 0);
  for (double value : values) {
    if (value != 0) {
      for (std::size_t d = 0; d < rank; ++d)
        rows[d].push_back(index[d]);
    }
    for (std::size_t d = rank; d-- > 0;) {  // the next position, row-major
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  const auto count = static_cast<int64_t>(rank == 0 ? 0 : rows[0].size());
  std::vector<int64_t> flat;
  for (const std::vector<int64_t>& row : rows)
    flat.insert(flat.end(), row.begin(), row.end());
  return one(ops::from_data(TensorData(flat, Shape{static_cast<int64_t>(rank), count}),
                            TensorCreationOptions(Device::ndarray()).with_dtype(DType::I64),
                            TensorKind::Int));
}

}  // namespace

void add_index_importers(OnnxImporters& table) {
  table.insert({
      {"Trilu", trilu},
      {"EyeLike", eye_like},
      {"OneHot", one_hot},
      {"Hardmax", hardmax},
      {"ScatterElements", scatter_elements},
      {"TensorScatter", tensor_scatter},
      {"NonZero", non_zero},
  });
}

}  // namespace ember::detail
