// Checks shared by the op rules (src/ir/*_rules.cpp). A failed check throws InvalidArgument
// "[name] ..." with name = ir::name(op); the name and the message are built only on failure,
// so a passing check costs a comparison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ir/ops.h"

namespace ember::ir::rules {

using Inputs = std::span<const TensorMeta>;
using Outputs = OutputMetas;

/// Streams parts into one string.
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

/// Throws InvalidArgument "[name(op)] parts...".
template <typename... Parts>
[[noreturn]] void fail(const Op& op, const Parts&... parts) {
  throw InvalidArgument(concat('[', name(op), "] ", parts...));
}

/// fail(op, parts...) unless condition holds.
template <typename... Parts>
void require(bool condition, const Op& op, const Parts&... parts) {
  if (!condition) fail(op, parts...);
}

/// Prints a list of integers as "[0, 2, 1]" (axes, which are not a Shape).
struct List {
  std::span<const int64_t> values;
};
std::ostream& operator<<(std::ostream& os, List list);

/// A set of dtypes a rule accepts; description completes "expects ... dtype" ("a float").
struct DTypeClass {
  std::string_view description;
  bool (*contains)(DType);
};
extern const DTypeClass kFloatDTypes;          ///< f64 f32 f16 bf16
extern const DTypeClass kIntDTypes;            ///< signed and unsigned
extern const DTypeClass kNumericDTypes;        ///< float or int
extern const DTypeClass kFloatOrSignedDTypes;  ///< float or signed int
extern const DTypeClass kBoolDTypes;           ///< bool
extern const DTypeClass kAnyDTypes;            ///< every dtype
/// The class of an op table's dtypes column (ember/ops.def).
const DTypeClass& dtype_class(DTypeSet set);

/// A list of the one output meta, moved in: `return {{shape, dtype}}` copies the meta out of its
/// initializer list, a heap allocation for the shape (a visible part of an op on a tiny tensor).
inline Outputs one_output(TensorMeta meta) {
  Outputs outputs;
  outputs.push_back(std::move(meta));
  return outputs;
}

/// Requires inputs.size() == expected: "expects 2 inputs, got 1".
void check_arity(const Op& op, Inputs inputs, std::size_t expected);
/// Requires every input's dims to be non-negative and its bytes countable in int64 (metadata may
/// come from untrusted bytes): "input 1 [2, -1] has negative dim -1".
void check_input_shapes(const Op& op, Inputs inputs);
/// The same for the outputs a rule inferred, so that no backend is asked for a tensor whose byte
/// count overflows: "output 0 [4611686018427387904] of f32 is too large: ...".
void check_output_sizes(const Op& op, std::span<const TensorMeta> outputs);
/// Requires dtype in accepted: "expects a float dtype, got i32" ("role: expects ..." with role).
void check_dtype(const Op& op, DType dtype, const DTypeClass& accepted, std::string_view role = {});
/// Requires a == b: "lhs dtype f32 and rhs dtype i64 differ".
void check_same_dtype(const Op& op, std::string_view a_role, DType a, std::string_view b_role,
                      DType b);
/// Requires a == b: "values shape [2] and slice shape [3] differ".
void check_same_shape(const Op& op, std::string_view a_role, const Shape& a,
                      std::string_view b_role, const Shape& b);
/// Requires 0 <= dim < rank and returns it as an index: "dim 3 out of range for rank 2".
std::size_t check_dim(const Op& op, int64_t dim, std::size_t rank, std::string_view role = "dim");
/// Requires a shape given as an op argument to have non-negative dims whose product fits in
/// int64: "shape [2, -1] has negative dim -1".
void check_new_shape(const Op& op, const Shape& shape);
/// Whether value, converted to dtype as the backends do (float → int truncates), is exactly
/// representable: always for float and bool dtypes; for ints, finite and in range.
bool scalar_fits(const Scalar& value, DType dtype);
/// Requires scalar_fits: "value 300 does not fit in u8".
void check_scalar_fits(const Op& op, const Scalar& value, DType dtype);
/// Requires an int index dtype able to hold every index of a dim of size extent.
void check_index_dtype(const Op& op, DType index_dtype, int64_t extent);

/// NumPy broadcasting of a and b; nullopt when incompatible.
std::optional<Shape> try_broadcast(const Shape& a, const Shape& b);
/// Broadcasts a and b: "lhs [2, 3] and rhs [4] do not broadcast".
Shape broadcast(const Op& op, std::string_view a_role, const Shape& a, std::string_view b_role,
                const Shape& b);
/// shape with dim axis replaced by size.
Shape with_dim(const Shape& shape, std::size_t axis, int64_t size);

}  // namespace ember::ir::rules
