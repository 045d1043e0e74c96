// Importer of ONNX's Unique, whose output shape depends on the input's values: the input must be
// known while the graph is built (as NonZero's), and the groups of equal entries (or slices along
// axis) are found on the host; the unique values are a select of the input at each group's first
// occurrence, the indices, inverse indices and counts constants. NaNs form one group, after
// every number. Values compare as long double, whose 64-bit mantissa (x86-64) holds every i64
// and u64 exactly.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// The entries of x compared: x's values as slices along axis (one slice per entry without one).
struct Slices {
  std::vector<long double> values;
  int64_t count = 0;  ///< slices
  int64_t width = 0;  ///< values per slice
};

Slices slices_of(const TensorData& x, std::optional<int64_t> axis) {
  const std::vector<long double> flat = x.to_vector<long double>();
  if (!axis) return {flat, static_cast<int64_t>(flat.size()), 1};
  const std::vector<int64_t>& dims = x.shape().dims();
  const auto a = static_cast<std::size_t>(*axis);
  int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d)
    outer *= dims[d];
  for (std::size_t d = a + 1; d < dims.size(); ++d)
    inner *= dims[d];
  Slices s{{}, dims[a], outer * inner};
  s.values.reserve(flat.size());
  for (int64_t k = 0; k < dims[a]; ++k) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i)
        s.values.push_back(flat[static_cast<std::size_t>((o * dims[a] + k) * inner + i)]);
    }
  }
  return s;
}

/// A total order: NaN after every number, NaNs equal.
int compare(long double a, long double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) - std::isnan(b);
  return (a > b) - (a < b);
}

int compare_slices(const Slices& s, int64_t i, int64_t j) {
  for (int64_t k = 0; k < s.width; ++k) {
    const int c = compare(s.values[static_cast<std::size_t>(i * s.width + k)],
                          s.values[static_cast<std::size_t>(j * s.width + k)]);
    if (c != 0) return c;
  }
  return 0;
}

TensorHandle int64s(const OnnxNode& node, std::vector<int64_t> values) {
  const auto n = static_cast<int64_t>(values.size());
  return constant(node, TensorData(std::move(values), Shape{n}));
}

std::vector<OnnxValue> unique(const OnnxNode& node) {
  const TensorData x = node.known(0, "X");
  std::optional<int64_t> axis;
  if (auto given = node.attr_int("axis"))
    axis = onnx_axis(node, *given, static_cast<int64_t>(x.shape().rank()));
  const Slices s = slices_of(x, axis);
  std::vector<int64_t> order(static_cast<std::size_t>(s.count));
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order,
                           [&](int64_t i, int64_t j) { return compare_slices(s, i, j) < 0; });
  // Groups in sorted order: their first occurrence (the least index, first after a stable sort).
  std::vector<int64_t> first, counts, group_of(static_cast<std::size_t>(s.count));
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || compare_slices(s, order[k - 1], order[k]) != 0) {
      first.push_back(order[k]);
      counts.push_back(0);
    }
    ++counts.back();
    group_of[static_cast<std::size_t>(order[k])] = static_cast<int64_t>(first.size()) - 1;
  }
  if (node.attr_int("sorted", 1) == 0) {  // groups by first occurrence instead
    std::vector<int64_t> by_first(first.size());
    std::iota(by_first.begin(), by_first.end(), 0);
    std::ranges::sort(by_first, [&](int64_t a, int64_t b) {
      return first[static_cast<std::size_t>(a)] < first[static_cast<std::size_t>(b)];
    });
    std::vector<int64_t> rank(first.size()), f, c;
    for (std::size_t r = 0; r < by_first.size(); ++r) {
      rank[static_cast<std::size_t>(by_first[r])] = static_cast<int64_t>(r);
      f.push_back(first[static_cast<std::size_t>(by_first[r])]);
      c.push_back(counts[static_cast<std::size_t>(by_first[r])]);
    }
    for (int64_t& g : group_of)
      g = rank[static_cast<std::size_t>(g)];
    first = std::move(f);
    counts = std::move(c);
  }
  const TensorHandle& input = node.tensor(0);
  const TensorHandle y = axis ? ops::select(input, *axis, int64s(node, first))
                              : ops::select(ops::reshape(input, {-1}), 0, int64s(node, first));
  return {{y, false},
          {int64s(node, first), false},
          {int64s(node, group_of), false},
          {int64s(node, counts), false}};
}

}  // namespace

void add_unique_importers(OnnxImporters& table) {
  table.insert({{"Unique", unique}});
}

}  // namespace ember::detail
