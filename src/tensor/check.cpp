#include "tensor/check.h"

#include <cmath>

#include "core/tensor_bytes.h"
#include "ember/tensor.h"
#include "tensor/tensor_impl.h"

namespace ember::tensor {

std::string kind_phrase(TensorKind kind) {
  std::ostringstream os;
  os << (kind == TensorKind::Int ? "an " : "a ") << kind;
  return os.str();
}

void fail_undefined(std::string_view op) {
  fail(op, "undefined tensor (default-constructed handle)");
}

bool is_symbolic(const TensorHandle& x) {
  return std::holds_alternative<CaptureDevice>(x.device().as_dispatch());
}

const Shape& shape_of(const TensorHandle& x, std::string_view op) {
  return impl_of(x, op).meta.shape;
}

DType tensor_dtype(const TensorHandle& x, std::string_view op) {
  return impl_of(x, op).meta.dtype;
}

int64_t normalize_dim(int64_t dim, std::size_t rank, std::string_view op) {
  const auto r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r) fail(op, "dim ", dim, " out of range for rank ", rank);
  return dim < 0 ? dim + r : dim;
}

int64_t normalize_insert_dim(int64_t dim, std::size_t rank, std::string_view op) {
  const auto r = static_cast<int64_t>(rank);
  if (dim < -r - 1 || dim > r) {
    fail(op, "dim ", dim, " out of range for inserting a dim into rank ", rank, " (valid: ", -r - 1,
         " to ", r, ")");
  }
  return dim < 0 ? dim + r + 1 : dim;
}

void require(const TensorHandle& x, KindRule rule, std::string_view op) {
  const DType dtype = impl_of(x, op).meta.dtype;
  const auto require_kind = [&](TensorKind wanted) {
    if (kind_of(dtype) != wanted) fail(op, "expects ", kind_phrase(wanted), " tensor, got ", dtype);
  };
  switch (rule) {
    case KindRule::Float:
      return require_kind(TensorKind::Float);
    case KindRule::Int:
      return require_kind(TensorKind::Int);
    case KindRule::Bool:
      return require_kind(TensorKind::Bool);
    case KindRule::Numeric:
      if (is_bool(dtype)) fail(op, "expects a Float or Int tensor, got ", dtype);
      return;
    case KindRule::Any:
      return;
  }
}

void require_same_kind(const TensorHandle& a, const TensorHandle& b, std::string_view op) {
  const DType da = impl_of(a, op).meta.dtype;
  const DType db = impl_of(b, op).meta.dtype;
  if (kind_of(da) != kind_of(db)) {
    fail(op, "tensors of different kinds: ", kind_phrase(kind_of(da)), " tensor (", da, ") and ",
         kind_phrase(kind_of(db)), " tensor (", db, ")");
  }
}

void check_exact_scalar(const Scalar& s, DType dtype, std::string_view op) {
  if (is_bool(dtype)) {
    if (s.as_double() != 0.0 && s.as_double() != 1.0) {
      fail(op, "scalar ", s, " with a Bool tensor (only 0, 1, true or false)");
    }
    return;
  }
  // A non-finite float is left to ir, which says that it does not fit the dtype.
  if (is_int(dtype) && s.kind == Scalar::Kind::Float && std::isfinite(s.f) &&
      std::trunc(s.f) != s.f) {
    fail(op, "float scalar ", s, " with an Int tensor (", dtype, ")");
  }
}

KindRule kind_rule(ir::DTypeSet dtypes) {
  switch (dtypes) {
    case ir::DTypeSet::Float:
      return KindRule::Float;
    case ir::DTypeSet::FloatOrSigned:
    case ir::DTypeSet::Numeric:
      return KindRule::Numeric;
    case ir::DTypeSet::Bool:
      return KindRule::Bool;
    case ir::DTypeSet::Any:
      return KindRule::Any;
  }
  return KindRule::Any;  // not an enumerator
}

void check_result_size(const Shape& shape, DType dtype, std::string_view op) {
  if (!detail::checked_tensor_bytes(shape, dtype)) {
    fail(op, "result ", shape, " of ", dtype, ' ', detail::kTooLargeForInt64);
  }
}

void rethrow_renamed(const InvalidArgument& e, std::string_view lowered, std::string_view op) {
  std::string_view message = e.what();
  const std::string prefix = "[" + std::string(lowered) + "] ";
  if (!message.starts_with(prefix)) throw e;
  message.remove_prefix(prefix.size());
  fail(op, message);
}

int64_t checked_mul(int64_t a, int64_t b, std::string_view op) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) fail(op, a, " * ", b, " overflows int64");
  return product;
}

int64_t checked_num_elements(const ops::Dims& dims, std::string_view op) {
  const Shape shape(dims);
  if (dims.empty()) fail(op, "shape [] has rank 0; ember tensors have rank >= 1");
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) fail(op, "negative dim ", d, " in shape ", shape);
    if (__builtin_mul_overflow(count, d, &count))
      fail(op, "shape ", shape, " has too many elements");
  }
  return count;
}

DType default_dtype(const DeviceSettings& settings, TensorKind kind) {
  switch (kind) {
    case TensorKind::Float:
      return to_dtype(settings.float_dtype);
    case TensorKind::Int:
      return to_dtype(settings.int_dtype);
    case TensorKind::Bool:
      return to_dtype(settings.bool_dtype);
  }
  return to_dtype(settings.float_dtype);  // unreachable: every kind is handled above
}

DType index_dtype(const TensorHandle& x) {
  return to_dtype(impl_of(x, "index_dtype").context->settings().int_dtype);
}

ops::Dims per_spatial_dim(const ops::Dims& values, std::size_t spatial_dims, std::string_view what,
                          std::string_view op) {
  if (values.size() == spatial_dims) return values;
  if (values.size() == 1) return ops::Dims(spatial_dims, values[0]);
  fail(op, what, " has ", values.size(), " values; expected 1 or ", spatial_dims,
       " (one per spatial dim)");
}

std::size_t spatial_dims_of(const TensorHandle& x, std::string_view op) {
  const std::size_t rank = shape_of(x, op).rank();
  if (rank < 3 || rank > 5) {
    fail(op, "expects x of shape [N, C, *spatial] with 1 to 3 spatial dims, got ", shape_of(x, op));
  }
  return rank - 2;
}

}  // namespace ember::tensor

namespace ember::detail {

void check_typed(const TensorHandle& h, std::size_t rank, TensorKind kind, const char* op) {
  const TensorImpl& impl = tensor::impl_of(h, op);
  if (impl.meta.shape.rank() != rank) {
    tensor::fail(op, "expected rank ", rank, ", got a tensor of shape ", impl.meta.shape);
  }
  if (kind_of(impl.meta.dtype) != kind) {
    tensor::fail(op, "expected ", tensor::kind_phrase(kind), " tensor, got ", impl.meta.dtype);
  }
}

void fail_into_scalar(const Shape& shape) {
  tensor::fail("into_scalar", "expected a tensor of one element, got shape ", shape, " (",
               shape.num_elements(), " elements)");
}

void fail_cast_kind(DType dtype, TensorKind kind) {
  tensor::fail("cast", "dtype ", dtype, " is not ", tensor::kind_phrase(kind),
               " dtype; cast keeps the kind (to_float, to_int and to_bool change it)");
}

}  // namespace ember::detail
