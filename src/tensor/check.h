// Argument checks shared by the Tensor API: the user-level mistakes an ir op cannot see (a dim
// out of range before it is normalized, a tensor of the wrong kind, a scalar the dtype would
// round) become an InvalidArgument whose message starts with the op's name in brackets and names
// the offending value. Shape, dtype and range rules of the ops themselves are ir::infer's.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "ember/device_settings.h"
#include "ember/error.h"
#include "ember/scalar.h"
#include "ember/tensor_handle.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"

namespace ember::detail {
struct TensorImpl;
}

namespace ember::tensor {

/// Throws InvalidArgument "[op] " followed by parts, each written with operator<<.
template <typename... Parts>
[[noreturn]] void fail(std::string_view op, const Parts&... parts) {
  std::ostringstream message;
  message << '[' << op << "] ";
  (message << ... << parts);
  throw InvalidArgument(message.str());
}

/// Throws impl_of's InvalidArgument for an undefined tensor.
[[noreturn]] void fail_undefined(std::string_view op);

/// The implementation behind x; InvalidArgument when x is undefined (default-constructed).
/// Inline: it runs for every input of every op.
inline const detail::TensorImpl& impl_of(const TensorHandle& x, std::string_view op) {
  if (!x.defined()) [[unlikely]]
    fail_undefined(op);
  return *x.impl();
}
/// Whether x's values are unknown: a tensor of the capture device (ember/graph.h), whose ops are
/// recorded, not run. A composite that reads values only to check them (class targets, one_hot's
/// classes) skips the check for it; the kernels refuse a bad index when the graph is replayed.
bool is_symbolic(const TensorHandle& x);
/// x's shape / dtype; InvalidArgument when x is undefined.
const Shape& shape_of(const TensorHandle& x, std::string_view op);
DType tensor_dtype(const TensorHandle& x, std::string_view op);

/// dim in [-rank, rank) mapped to [0, rank).
int64_t normalize_dim(int64_t dim, std::size_t rank, std::string_view op);
/// A position for a new dim, in [-(rank + 1), rank], mapped to [0, rank] (-1 = after the last).
int64_t normalize_insert_dim(int64_t dim, std::size_t rank, std::string_view op);

/// The tensor kinds an op accepts.
enum class KindRule : uint8_t { Float, Int, Bool, Numeric, Any };
/// The tensor kinds an op of the op table takes, from its dtypes column (FloatOrSigned: Numeric;
/// ir's rule then refuses the unsigned dtypes).
KindRule kind_rule(ir::DTypeSet dtypes);
/// Checks that x is defined and of a kind rule accepts ("[exp] expects a Float tensor, got i64").
void require(const TensorHandle& x, KindRule rule, std::string_view op);
void require_same_kind(const TensorHandle& a, const TensorHandle& b, std::string_view op);

/// The kind with its article, for messages: "a Float", "an Int", "a Bool".
std::string kind_phrase(TensorKind kind);
/// Checks that s does not lose its value to rounding in dtype: a finite float scalar for an Int
/// tensor must be integral (2.5 is refused), a scalar for a Bool tensor must be 0, 1, true or
/// false. Note: whether s is in dtype's range is ir's rule (check_scalar_fits, run by
/// ir::infer); ir converts as the backends do (2.5 → 2, 2 → true), so this stricter rule of
/// the Tensor API is the only one kept here.
void check_exact_scalar(const Scalar& s, DType dtype, std::string_view op);

/// Rethrows e, an InvalidArgument of the op a composite lowered to ("[select] ..."), as the
/// composite's own ("[embedding] ...").
[[noreturn]] void rethrow_renamed(const InvalidArgument& e, std::string_view lowered,
                                  std::string_view op);

/// The element count of dims; InvalidArgument for a negative dim, rank 0 (ember tensors have
/// rank >= 1) or a count that overflows int64.
int64_t checked_num_elements(const ops::Dims& dims, std::string_view op);
/// For a composite op, whose intermediates may be smaller than its result: requires the result,
/// of shape and dtype, to fit the int64 byte limit every tensor keeps (core/tensor_bytes.h)
/// before anything is computed.
void check_result_size(const Shape& shape, DType dtype, std::string_view op);
/// a * b; InvalidArgument when it overflows int64.
int64_t checked_mul(int64_t a, int64_t b, std::string_view op);

/// A per-spatial-dim option of a spatial op (conv, pool, interpolate) expanded to spatial_dims
/// entries: one value stands for every dim. InvalidArgument "[op] what ..." for another count.
ops::Dims per_spatial_dim(const ops::Dims& values, std::size_t spatial_dims, std::string_view what,
                          std::string_view op);
/// The number of spatial dims of x [N, C, *spatial]: 1 to 3, else InvalidArgument naming op.
std::size_t spatial_dims_of(const TensorHandle& x, std::string_view op);

/// The dtype settings give tensors of kind.
DType default_dtype(const DeviceSettings& settings, TensorKind kind);
/// The dtype of index outputs (argmax, sort): the int dtype of x's device.
DType index_dtype(const TensorHandle& x);

}  // namespace ember::tensor
