// Importers of ONNX's GatherND and ScatterND: each index row [i0 .. ik-1] names an entry (or a
// slice) of data; written as ember's select and select_assign on data flattened over the
// indexed dims, each row's position there computed from its indices (counted from the end where
// negative) and, for GatherND's batch_dims, its batch. The reductions mul, max and min, which
// ember's select_assign (a sum) does not make, compare every row with every update.
#include <numeric>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

int64_t product(const std::vector<int64_t>& dims, std::size_t from, std::size_t to) {
  return std::accumulate(dims.begin() + static_cast<std::ptrdiff_t>(from),
                         dims.begin() + static_cast<std::ptrdiff_t>(to), int64_t{1},
                         std::multiplies<>());
}

/// k, the entries of indices' rows [..., k]: at least 1, and within data's rank past its first
/// batch dims. Checked before anything indexes data's dims with it.
int64_t row_length(const OnnxNode& node, const std::vector<int64_t>& data,
                   const TensorHandle& indices, int64_t batch) {
  const int64_t k = indices.shape().dims().back();
  if (k < 1 || batch + k > static_cast<int64_t>(data.size()))
    node.fail("index rows of ", k, " entries for data of rank ", data.size());
  return k;
}

/// The flat position, over data's dims [batch, batch + k), of each index row of indices
/// [..., k], plus each row's batch (its position over indices' first batch dims) times the
/// positions a batch holds: i64 of indices' shape without its last dim, flattened.
TensorHandle flat_rows(const OnnxNode& node, const std::vector<int64_t>& data,
                       const TensorHandle& indices, int64_t batch) {
  const std::vector<int64_t>& dims = indices.shape().dims();
  const int64_t k = row_length(node, data, indices, batch);
  const int64_t rows = product(dims, 0, dims.size() - 1);
  const TensorHandle table = ops::reshape(ops::cast(indices, DType::I64), {rows, k});
  TensorHandle flat = ops::zeros(
      Shape{rows}, TensorCreationOptions(node.device()).with_dtype(DType::I64), TensorKind::Int);
  for (int64_t j = 0; j < k; ++j) {
    const int64_t size = data[static_cast<std::size_t>(batch + j)];
    TensorHandle column = ops::reshape(ops::narrow(table, 1, j, 1), {rows});
    column = ops::where(ops::lower_elem(column, 0), ops::add_scalar(column, size), column);
    flat = ops::add(ops::mul_scalar(flat, size), column);
  }
  if (batch == 0) return flat;
  // Rows are in batch order: row r belongs to batch r / (rows per batch).
  const int64_t batches = product(dims, 0, static_cast<std::size_t>(batch));
  if (batches == 0) return flat;  // no rows
  const TensorHandle which =
      ops::reshape(ops::expand(positions(node, batches, 2, 0), {batches, rows / batches}), {rows});
  const int64_t per_batch =
      product(data, static_cast<std::size_t>(batch), static_cast<std::size_t>(batch + k));
  return ops::add(flat, ops::mul_scalar(which, per_batch));
}

/// data [d0 ..] as [d0 * .. * d(batch + k - 1), the rest].
TensorHandle flat_data(const TensorHandle& data, int64_t indexed) {
  const std::vector<int64_t>& dims = data.shape().dims();
  std::vector<int64_t> flat{product(dims, 0, static_cast<std::size_t>(indexed))};
  flat.insert(flat.end(), dims.begin() + indexed, dims.end());
  return ops::reshape(data, flat);
}

std::vector<OnnxValue> gather_nd(const OnnxNode& node) {
  const TensorHandle& data = node.tensor(0);
  const TensorHandle& indices = node.tensor(1);
  const int64_t batch = node.attr_int("batch_dims", 0);
  if (batch < 0 || batch >= static_cast<int64_t>(indices.rank()))
    node.fail("batch_dims ", batch, " for indices of rank ", indices.rank());
  const std::vector<int64_t>& d = data.shape().dims();
  const int64_t k = row_length(node, d, indices, batch);
  const TensorHandle picked =
      ops::select(flat_data(data, batch + k), 0, flat_rows(node, d, indices, batch));
  std::vector<int64_t> dims(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
  dims.insert(dims.end(), d.begin() + batch + k, d.end());
  return {reshaped(picked, dims)};
}

}  // namespace

TensorHandle scatter_reduce(const OnnxNode& node, const TensorHandle& base,
                            const TensorHandle& rows, const TensorHandle& updates,
                            const std::string& reduction) {
  const int64_t t = base.shape().dims()[0], s = base.shape().dims()[1];
  const int64_t k = rows.shape().dims()[0];
  if (t * k * s > (int64_t{1} << 24))
    node.fail("reduction '", reduction, "' over ", t, " rows of ", s, " by ", k,
              " updates (at most 2^24 pairs)");
  const TensorHandle hits = ops::unsqueeze_dim(
      ops::equal(ops::reshape(rows, {1, k}), positions(node, t, 2, 0)), 2);  // [T, K, 1]
  const TensorHandle wide = ops::expand(ops::reshape(updates, {1, k, s}), {t, k, s});
  if (reduction == "mul") {
    const TensorHandle factors = ops::mask_where(ops::full_like(wide, 1), hits, wide);
    return ops::mul(base, ops::reshape(ops::prod_dim(factors, 1), {t, s}));
  }
  // Where an update misses a row, the row's own entries stand in: the extreme over all of them,
  // and the row, is the row combined with its updates.
  const TensorHandle candidates =
      ops::mask_where(ops::expand(ops::unsqueeze_dim(base, 1), {t, k, s}), hits, wide);
  if (reduction == "max")
    return ops::maximum(base, ops::reshape(ops::max_dim(candidates, 1), {t, s}));
  if (reduction == "min")
    return ops::minimum(base, ops::reshape(ops::min_dim(candidates, 1), {t, s}));
  node.fail("reduction '", reduction, "' (none, add, mul, max, min)");
}

namespace {

/// ScatterND: data with each index row's entry (or slice) replaced by its update (reduction
/// none: the rows unique, as ONNX requires), added to (add) or combined by mul, max or min.
std::vector<OnnxValue> scatter_nd(const OnnxNode& node) {
  const TensorHandle& data = node.tensor(0);
  const TensorHandle& indices = node.tensor(1);
  const std::string reduction = node.attr_string("reduction", "none");
  const int64_t k = row_length(node, data.shape().dims(), indices, 0);
  const TensorHandle flat = flat_data(data, k);
  const TensorHandle rows = flat_rows(node, data.shape().dims(), indices, 0);
  std::vector<int64_t> update_dims = flat.shape().dims();
  update_dims[0] = rows.shape().dims()[0];
  const TensorHandle updates = ops::reshape(node.tensor(2), update_dims);
  if (reduction != "none" && reduction != "add") {
    const int64_t slice = product(update_dims, 1, update_dims.size());
    const TensorHandle reduced =
        scatter_reduce(node, ops::reshape(flat, {flat.shape().dims()[0], slice}), rows,
                       ops::reshape(updates, {update_dims[0], slice}), reduction);
    return one(ops::reshape(reduced, data.shape().dims()));
  }
  TensorHandle base = flat;
  if (reduction == "none") {
    // The rows written are cleared first, so the sum select_assign makes is the update.
    const TensorHandle hits = ops::select_assign(
        ops::zeros(Shape{flat.shape().dims()[0]},
                   TensorCreationOptions(node.device()).with_dtype(DType::I64), TensorKind::Int),
        0, rows, ops::full_like(rows, 1));
    std::vector<int64_t> column(flat.rank(), 1);
    column[0] = flat.shape().dims()[0];
    base = ops::mask_fill(flat, ops::reshape(ops::greater_elem(hits, 0), column), 0);
  }
  return one(ops::reshape(ops::select_assign(base, 0, rows, updates), data.shape().dims()));
}

}  // namespace

void add_nd_importers(OnnxImporters& table) {
  table.insert({
      {"GatherND", gather_nd},
      {"ScatterND", scatter_nd},
  });
}

}  // namespace ember::detail
