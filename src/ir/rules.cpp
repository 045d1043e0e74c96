#include "ir/rules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "core/recycled_shapes.h"
#include "core/tensor_bytes.h"

namespace ember::ir::rules {
namespace {

bool is_numeric(DType d) {
  return is_float(d) || is_int(d);
}
bool is_float_or_signed(DType d) {
  return is_float(d) || is_signed_int(d);
}
bool is_any(DType) {
  return true;
}

/// Whether s converts to the integer type T without overflow (float → int truncates; NaN and
/// infinities never fit).
template <typename T>
bool fits_integer(const Scalar& s) {
  if (s.kind != Scalar::Kind::Float) return std::in_range<T>(s.i);
  const double truncated = std::trunc(s.f);
  // 2^digits is the first value past T's maximum, and exact in a double (unlike max() itself).
  const double past_max = std::ldexp(1.0, std::numeric_limits<T>::digits);
  return truncated >= static_cast<double>(std::numeric_limits<T>::min()) && truncated < past_max;
}

/// Requires non-negative dims whose product fits in int64; role... names the shape.
template <typename... Role>
void check_dims(const Op& op, const Shape& shape, const Role&... role) {
  int64_t count = 1;
  for (int64_t dim : shape.dims()) {
    require(dim >= 0, op, role..., ' ', shape, " has negative dim ", dim);
    // A zero dim counts as 1: the dims after it must not overflow strides or products either.
    require(!__builtin_mul_overflow(count, dim == 0 ? 1 : dim, &count), op, role..., ' ', shape,
            " has more elements than int64 can count");
  }
}

/// Requires meta's dims to be non-negative and its bytes countable in int64
/// (core/tensor_bytes.h); role... names the tensor.
template <typename... Role>
void check_size(const Op& op, const TensorMeta& meta, const Role&... role) {
  if (detail::checked_tensor_bytes(meta.shape, meta.dtype)) [[likely]]
    return;
  check_dims(op, meta.shape, role...);
  fail(op, role..., ' ', meta.shape, " of ", meta.dtype, ' ', detail::kTooLargeForInt64);
}

}  // namespace

const DTypeClass kFloatDTypes{"a float", is_float};
const DTypeClass kIntDTypes{"an int", is_int};
const DTypeClass kNumericDTypes{"a numeric", is_numeric};
const DTypeClass kFloatOrSignedDTypes{"a float or signed int", is_float_or_signed};
const DTypeClass kBoolDTypes{"a bool", is_bool};
const DTypeClass kAnyDTypes{"any", is_any};

const DTypeClass& dtype_class(DTypeSet set) {
  switch (set) {
    case DTypeSet::Float:
      return kFloatDTypes;
    case DTypeSet::FloatOrSigned:
      return kFloatOrSignedDTypes;
    case DTypeSet::Numeric:
      return kNumericDTypes;
    case DTypeSet::Bool:
      return kBoolDTypes;
    case DTypeSet::Any:
      return kAnyDTypes;
  }
  return kAnyDTypes;  // not an enumerator
}

std::ostream& operator<<(std::ostream& os, List list) {
  os << '[';
  for (std::size_t i = 0; i < list.values.size(); ++i)
    os << (i ? ", " : "") << list.values[i];
  return os << ']';
}

void check_arity(const Op& op, Inputs inputs, std::size_t expected) {
  require(inputs.size() == expected, op, "expects ", expected, " input", expected == 1 ? "" : "s",
          ", got ", inputs.size());
}

void check_input_shapes(const Op& op, Inputs inputs) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    check_size(op, inputs[i], "input ", i);
}

void check_output_sizes(const Op& op, std::span<const TensorMeta> outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i)
    check_size(op, outputs[i], "output ", i);
}

void check_dtype(const Op& op, DType dtype, const DTypeClass& accepted, std::string_view role) {
  if (accepted.contains(dtype)) return;
  if (role.empty()) fail(op, "expects ", accepted.description, " dtype, got ", dtype);
  fail(op, role, ": expects ", accepted.description, " dtype, got ", dtype);
}

void check_same_dtype(const Op& op, std::string_view a_role, DType a, std::string_view b_role,
                      DType b) {
  require(a == b, op, a_role, " dtype ", a, " and ", b_role, " dtype ", b, " differ");
}

void check_same_shape(const Op& op, std::string_view a_role, const Shape& a,
                      std::string_view b_role, const Shape& b) {
  require(a == b, op, a_role, " shape ", a, " and ", b_role, " shape ", b, " differ");
}

std::size_t check_dim(const Op& op, int64_t dim, std::size_t rank, std::string_view role) {
  require(dim >= 0 && static_cast<uint64_t>(dim) < rank, op, role, ' ', dim,
          " out of range for rank ", rank);
  return static_cast<std::size_t>(dim);
}

void check_new_shape(const Op& op, const Shape& shape) {
  check_dims(op, shape, "shape");
}

bool scalar_fits(const Scalar& value, DType dtype) {
  return visit_dtype(dtype, [&]<typename T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      return fits_integer<T>(value);
    } else {
      return true;
    }
  });
}

void check_scalar_fits(const Op& op, const Scalar& value, DType dtype) {
  require(scalar_fits(value, dtype), op, "value ", value, " does not fit in ", dtype);
}

void check_index_dtype(const Op& op, DType index_dtype, int64_t extent) {
  check_dtype(op, index_dtype, kIntDTypes, "index dtype");
  require(extent == 0 || scalar_fits(Scalar(extent - 1), index_dtype), op, "index dtype ",
          index_dtype, " cannot hold index ", extent - 1, " of a dim of size ", extent);
}

std::optional<Shape> try_broadcast(const Shape& a, const Shape& b) {
  // The usual case, one shape, copied into a dead tensor's shape memory: no allocation.
  if (a == b) return detail::recycled_copy(a);
  const std::size_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  // Align trailing dims: position i from the end; a missing leading dim acts as 1.
  for (std::size_t i = 0; i < rank; ++i) {
    const int64_t da = i < a.rank() ? a[a.rank() - 1 - i] : 1;
    const int64_t db = i < b.rank() ? b[b.rank() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    dims[rank - 1 - i] = da == 1 ? db : da;
  }
  return Shape(std::move(dims));
}

Shape broadcast(const Op& op, std::string_view a_role, const Shape& a, std::string_view b_role,
                const Shape& b) {
  std::optional<Shape> shape = try_broadcast(a, b);
  if (!shape) fail(op, a_role, ' ', a, " and ", b_role, ' ', b, " do not broadcast");
  return std::move(*shape);
}

Shape with_dim(const Shape& shape, std::size_t axis, int64_t size) {
  std::vector<int64_t> dims = shape.dims();
  dims[axis] = size;
  return Shape(std::move(dims));
}

}  // namespace ember::ir::rules
