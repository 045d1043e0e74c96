// Stable sort along one dim, giving the sorted values and their original positions.
#include <algorithm>
#include <numeric>
#include <vector>

#include "backends/ndarray/element.h"
#include "backends/ndarray/element_copy.h"
#include "backends/ndarray/index_data.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {
namespace {

/// Ascending order with NaN as the largest value (PyTorch); NaNs are equivalent to each other.
template <typename T>
bool ascending(T a, T b) {
  if (is_nan(a)) return false;
  if (is_nan(b)) return true;
  return load(a) < load(b);
}

/// The positions of lane's elements in sorted order. stable_sort keeps equal elements in their
/// original order in both directions, since descending compares with the arguments swapped.
template <typename T>
std::vector<int64_t> sorted_positions(const Lane<T>& lane, bool descending) {
  std::vector<int64_t> positions(static_cast<std::size_t>(lane.size()));
  std::iota(positions.begin(), positions.end(), int64_t{0});
  std::stable_sort(positions.begin(), positions.end(), [&](int64_t a, int64_t b) {
    return descending ? ascending(lane[b], lane[a]) : ascending(lane[a], lane[b]);
  });
  return positions;
}

}  // namespace

std::vector<TensorData> run(const ir::Sort& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const Lanes lanes = Lanes::along(x.shape(), op.dim);
  const auto count = static_cast<std::size_t>(x.num_elements());
  std::vector<int64_t> source(count);     // flat offset in x of each sorted element
  std::vector<int64_t> positions(count);  // its position along dim (the index output)
  visit_dtype(x.dtype(), [&]<typename T>() {
    for (int64_t lane = 0; lane < lanes.count(); ++lane) {
      const std::vector<int64_t> order =
          sorted_positions(Lane<T>(x.as<T>(), lanes, lane), op.descending);
      for (int64_t k = 0; k < lanes.size; ++k) {
        source[lanes.offset(lane, k)] = lanes.offset(lane, order[k]);
        positions[lanes.offset(lane, k)] = order[k];
      }
    }
  });
  std::vector<TensorData> results;
  results.push_back(gather_elements(x, source, out[0].shape));
  results.push_back(index_data(positions, out[1]));
  return results;
}

}  // namespace ember::ndarray
