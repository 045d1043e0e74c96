// Layout ops. reshape, permute, flip, expand and slice map onto their ir ops after the user's
// conventions are resolved (-1 dims, negative dims, Python slices); the rest are lowered onto
// those: transpose and swap_dims to Permute, narrow to Slice, squeeze and unsqueeze to Reshape,
// repeat_dim to Reshape + Expand + Reshape.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>

#include "ember/tensor_ops.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"

namespace ember::ops {
namespace {

using tensor::fail;

/// dims with its single -1 (if any) resolved against shape's element count.
Shape resolve_reshape(const Shape& shape, const Dims& dims) {
  const auto inferred = std::find(dims.begin(), dims.end(), -1);
  if (std::count(dims.begin(), dims.end(), -1) > 1) {
    fail("reshape", "more than one -1 in ", Shape(dims));
  }
  if (inferred == dims.end()) {
    tensor::checked_num_elements(dims, "reshape");
    return Shape(dims);
  }
  Dims resolved = dims;
  resolved[inferred - dims.begin()] = 1;
  const int64_t known = tensor::checked_num_elements(resolved, "reshape");
  if (known == 0 || shape.num_elements() % known != 0) {
    fail("reshape", "cannot reshape ", shape, " (", shape.num_elements(), " elements) to ",
         Shape(dims));
  }
  resolved[inferred - dims.begin()] = shape.num_elements() / known;
  return Shape(std::move(resolved));
}

Dims normalize_dims(const Dims& dims, std::size_t rank, std::string_view op) {
  Dims normalized;
  normalized.reserve(dims.size());
  for (int64_t d : dims)
    normalized.push_back(tensor::normalize_dim(d, rank, op));
  return normalized;
}

Dims identity_axes(std::size_t rank) {
  Dims axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  return axes;
}

/// x with its (normalized) dims a and b exchanged.
TensorHandle swap_normalized(const TensorHandle& x, int64_t a, int64_t b) {
  if (a == b) return x;
  Dims axes = identity_axes(x.rank());
  std::swap(axes[a], axes[b]);
  return tensor::run_one(ir::Permute{std::move(axes)}, {x});
}

/// dims with value inserted before position.
Dims inserted(Dims dims, std::size_t position, int64_t value) {
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(position), value);
  return dims;
}

/// Where one Python slice of a dim lands: a positive-step range, reversed afterwards when the
/// Python step was negative.
struct DimSlice {
  ir::SliceRange range;
  bool reversed = false;
};

/// Python's rule for one bound: negative counts from the end, then clamp into [low, high].
int64_t clamp_bound(int64_t bound, int64_t size, int64_t low, int64_t high) {
  if (bound < 0) bound += size;  // bound >= INT64_MIN and size >= 0: no overflow
  return std::clamp(bound, low, high);
}

DimSlice normalize_slice(const Slice& s, int64_t size, std::size_t dim, std::string_view op) {
  if (s.step == 0) fail(op, "step 0 in dim ", dim);
  if (s.step > 0) {
    const int64_t start = s.start ? clamp_bound(*s.start, size, 0, size) : 0;
    const int64_t end = s.end ? clamp_bound(*s.end, size, 0, size) : size;
    return {{start, std::max(start, end), s.step}, false};
  }
  // A negative step walks down from first (inclusive) to stop (exclusive), both clamped as
  // Python clamps them; the same elements, read upwards, form a positive-step range.
  const int64_t first = s.start ? clamp_bound(*s.start, size, -1, size - 1) : size - 1;
  const int64_t stop = s.end ? clamp_bound(*s.end, size, -1, size - 1) : -1;
  // -INT64_MIN overflows; any step at least size long selects one element, as INT64_MAX does.
  const int64_t step =
      s.step == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -s.step;
  const int64_t count = stop < first ? (first - stop - 1) / step + 1 : 0;
  if (count == 0) return {{0, 0, 1}, false};
  return {{first - (count - 1) * step, first + 1, step}, true};
}

int64_t range_length(const ir::SliceRange& r) {
  const int64_t span = r.end - r.start;
  return span / r.step + (span % r.step != 0 ? 1 : 0);
}

/// A Python-style multi-dim slice as an ir::Slice plus the dims to flip afterwards.
struct SlicePlan {
  std::vector<ir::SliceRange> ranges;
  Dims reversed_dims;
  Shape shape;  ///< The slice's shape.
};

SlicePlan plan_slice(const Shape& shape, const std::vector<Slice>& slices, std::string_view op) {
  if (slices.size() > shape.rank()) {
    fail(op, slices.size(), " slices for a tensor of rank ", shape.rank(), " (shape ", shape, ")");
  }
  SlicePlan plan;
  Dims dims;
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    const DimSlice dim = normalize_slice(d < slices.size() ? slices[d] : Slice{}, shape[d], d, op);
    plan.ranges.push_back(dim.range);
    if (dim.reversed) plan.reversed_dims.push_back(static_cast<int64_t>(d));
    dims.push_back(range_length(dim.range));
  }
  plan.shape = Shape(std::move(dims));
  return plan;
}

}  // namespace

TensorHandle reshape(const TensorHandle& x, const Dims& dims) {
  const Shape target = resolve_reshape(tensor::shape_of(x, "reshape"), dims);
  if (target == x.shape()) return x;
  return tensor::run_one(ir::Reshape{target}, {x});
}

TensorHandle permute(const TensorHandle& x, const Dims& axes) {
  Dims normalized = normalize_dims(axes, tensor::shape_of(x, "permute").rank(), "permute");
  if (normalized == identity_axes(x.rank())) return x;
  return tensor::run_one(ir::Permute{std::move(normalized)}, {x});
}

TensorHandle transpose(const TensorHandle& x) {
  const auto rank = static_cast<int64_t>(tensor::shape_of(x, "transpose").rank());
  if (rank < 2) fail("transpose", "needs rank >= 2, got shape ", x.shape());
  return swap_normalized(x, rank - 2, rank - 1);
}

TensorHandle swap_dims(const TensorHandle& x, int64_t a, int64_t b) {
  const std::size_t rank = tensor::shape_of(x, "swap_dims").rank();
  return swap_normalized(x, tensor::normalize_dim(a, rank, "swap_dims"),
                         tensor::normalize_dim(b, rank, "swap_dims"));
}

TensorHandle flip(const TensorHandle& x, const Dims& axes) {
  Dims normalized = normalize_dims(axes, tensor::shape_of(x, "flip").rank(), "flip");
  if (normalized.empty()) return x;
  return tensor::run_one(ir::Flip{std::move(normalized)}, {x});
}

TensorHandle expand(const TensorHandle& x, const Dims& dims) {
  const Shape& shape = tensor::shape_of(x, "expand");
  if (dims.size() < shape.rank()) {
    fail("expand", "cannot expand ", shape, " to ", Shape(dims), ": fewer dims than the tensor");
  }
  const std::size_t leading = dims.size() - shape.rank();
  Dims target = dims;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1 && i < leading) {
      fail("expand", "-1 at new leading dim ", i, " of ", Shape(dims), " (it has no size to keep)");
    }
    if (dims[i] == -1) target[i] = shape[i - leading];
  }
  tensor::checked_num_elements(target, "expand");
  Dims with_leading_ones(leading, 1);
  with_leading_ones.insert(with_leading_ones.end(), shape.dims().begin(), shape.dims().end());
  const TensorHandle aligned = reshape(x, with_leading_ones);
  if (Shape(target) == aligned.shape()) return aligned;
  return tensor::run_one(ir::Expand{Shape(std::move(target))}, {aligned});
}

TensorHandle slice(const TensorHandle& x, const std::vector<Slice>& slices) {
  const Shape& shape = tensor::shape_of(x, "slice");
  SlicePlan plan = plan_slice(shape, slices, "slice");
  const TensorHandle sliced =
      plan.shape == shape ? x : tensor::run_one(ir::Slice{std::move(plan.ranges)}, {x});
  return flip(sliced, plan.reversed_dims);
}

TensorHandle slice_assign(const TensorHandle& x, const std::vector<Slice>& slices,
                          const TensorHandle& values) {
  tensor::require_same_kind(x, values, "slice_assign");
  SlicePlan plan = plan_slice(x.shape(), slices, "slice_assign");
  if (values.shape() != plan.shape) {
    fail("slice_assign", "values of shape ", values.shape(), " do not match the slice's shape ",
         plan.shape);
  }
  // A negative step writes the values backwards: flipping them turns it into a forward write.
  const TensorHandle forward = flip(cast(values, x.dtype()), plan.reversed_dims);
  return tensor::run_one(ir::SliceAssign{std::move(plan.ranges)}, {x, forward});
}

TensorHandle narrow(const TensorHandle& x, int64_t dim, int64_t start, int64_t length) {
  const Shape& shape = tensor::shape_of(x, "narrow");
  const int64_t d = tensor::normalize_dim(dim, shape.rank(), "narrow");
  const int64_t size = shape[d];
  if (start < -size || start > size) {
    fail("narrow", "start ", start, " out of range for dim ", dim, " of size ", size);
  }
  if (start < 0) start += size;
  if (length < 0) fail("narrow", "length ", length, " must be >= 0");
  if (length > size - start) {
    fail("narrow", "start ", start, " + length ", length, " exceeds size ", size, " of dim ", dim);
  }
  std::vector<Slice> slices(static_cast<std::size_t>(d), Slice::all());
  slices.push_back(Slice(start, start + length));
  return slice(x, slices);
}

TensorHandle squeeze(const TensorHandle& x, int64_t dim) {
  const Shape& shape = tensor::shape_of(x, "squeeze");
  const int64_t d = tensor::normalize_dim(dim, shape.rank(), "squeeze");
  if (shape[d] != 1)
    fail("squeeze", "dim ", dim, " has size ", shape[d], ", not 1 (shape ", shape, ")");
  if (shape.rank() == 1) fail("squeeze", "cannot remove the only dim of shape ", shape);
  Dims dims = shape.dims();
  dims.erase(dims.begin() + d);
  return reshape(x, dims);
}

TensorHandle squeeze_all(const TensorHandle& x) {
  Dims dims;
  for (int64_t d : tensor::shape_of(x, "squeeze_all").dims()) {
    if (d != 1) dims.push_back(d);
  }
  if (dims.empty()) dims.push_back(1);  // ember tensors keep rank >= 1
  return reshape(x, dims);
}

TensorHandle unsqueeze_dim(const TensorHandle& x, int64_t dim) {
  const Shape& shape = tensor::shape_of(x, "unsqueeze_dim");
  const int64_t d = tensor::normalize_insert_dim(dim, shape.rank(), "unsqueeze_dim");
  return reshape(x, inserted(shape.dims(), static_cast<std::size_t>(d), 1));
}

TensorHandle unsqueeze(const TensorHandle& x, std::size_t rank) {
  const Shape& shape = tensor::shape_of(x, "unsqueeze");
  if (rank < shape.rank()) {
    fail("unsqueeze", "cannot lower the rank of shape ", shape, " to ", rank);
  }
  Dims dims(rank - shape.rank(), 1);
  dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
  return reshape(x, dims);
}

TensorHandle repeat_dim(const TensorHandle& x, int64_t dim, int64_t times) {
  const Shape& shape = tensor::shape_of(x, "repeat_dim");
  const int64_t d = tensor::normalize_dim(dim, shape.rank(), "repeat_dim");
  if (times < 0) fail("repeat_dim", "times ", times, " must be >= 0");
  if (times == 1) return x;
  // [.., n, ..] → [.., 1, n, ..] → [.., times, n, ..] → [.., times * n, ..]: whole copies.
  const auto at = static_cast<std::size_t>(d);
  Dims repeated = inserted(shape.dims(), at, times);
  Dims result = shape.dims();
  result[at] = tensor::checked_mul(shape[at], times, "repeat_dim");
  tensor::checked_num_elements(result, "repeat_dim");
  return reshape(expand(reshape(x, inserted(shape.dims(), at, 1)), repeated), result);
}

}  // namespace ember::ops
