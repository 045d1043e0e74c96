// The op table: ONE list of op cases, shared by the golden suite (tests/golden: ndarray against
// NumPy) and the conformance suite (tests/conformance: every device against ndarray). A case
// names an op of include/ember/tensor_ops.h, the dtypes it accepts, how to build its inputs for
// a dtype, and how to run it through ember::ops. Adding an op adds a case here (and its mirror
// in tests/golden/generate.py); adding a backend adds nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/device.h"
#include "ember/tensor_data.h"
#include "ember/tensor_ops.h"
#include "support/op_args.h"

namespace ember::test {

/// A set of dtypes, as bit flags.
enum class DTypes : uint8_t {
  None = 0,
  Float = 1,
  SignedInt = 2,
  UnsignedInt = 4,
  Bool = 8,
  Int = SignedInt | UnsignedInt,
  FloatOrSigned = Float | SignedInt,
  Numeric = Float | Int,
  All = Numeric | Bool,
};
bool contains(DTypes set, DType dtype);

/// What a case runs on: input tensors (uploaded in their own dtypes) and non-tensor arguments.
struct OpInputs {
  std::vector<TensorData> tensors;
  OpArgs args;
};

/// Where and in which dtype a case runs (creation ops create their tensor there, in dtype).
struct OpTarget {
  Device device;
  DType dtype;
};

/// Runs an op on uploaded inputs; returns every output (two for sort_with_indices, the pieces
/// for split, ...).
using OpRun = std::function<ops::Handles(const ops::Handles& inputs, const OpArgs& args,
                                         const OpTarget& target)>;

struct OpCase {
  /// The op's name in tensor_ops.h (= ir::name where the op has an ir struct), followed by
  /// "/variant" when the op has several cases: "add", "slice/negative_step".
  std::string name;
  /// The dtypes the op accepts for its main input; every other dtype must be rejected with
  /// InvalidArgument.
  DTypes dtypes = DTypes::All;
  /// Inputs for a dtype (any dtype: the conformance suite also builds rejected ones).
  std::function<OpInputs(DType)> make_inputs;
  OpRun run;
  /// False when the outputs' values are unspecified (empty): only shapes and dtypes compare.
  bool values_defined = true;
  /// False when no NumPy reference exists (random): the golden suite skips the case.
  bool has_golden = true;
  /// An elementwise op (inputs broadcast, no dim argument): the conformance suite also runs it on
  /// inputs enlarged to thousands of elements, where fused programs run compiled (flex's JIT)
  /// or tile by tile rather than op by op.
  bool elementwise = false;
};

/// Every case, in a fixed order.
const std::vector<OpCase>& op_table();
/// The case called name; nullptr when there is none.
const OpCase* find_op_case(std::string_view name);
/// Uploads inputs.tensors to target.device (keeping their dtypes) and runs the case.
ops::Handles run_case(const OpCase& op, const OpInputs& inputs, const OpTarget& target);
/// Reads every output back to the host.
std::vector<TensorData> read_all(const ops::Handles& outputs);
/// name as a GoogleTest name: every character other than a letter or digit becomes '_'.
std::string test_name(std::string_view name);

}  // namespace ember::test
