#include "fusion/fusible.h"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "fusion/arg_list.h"

namespace ember::fusion {
namespace {

template <typename Op>
constexpr bool kIsElementwise =
    std::is_same_v<Op, ir::Unary> || std::is_same_v<Op, ir::Binary> ||
    std::is_same_v<Op, ir::BinaryScalar> || std::is_same_v<Op, ir::Compare> ||
    std::is_same_v<Op, ir::CompareScalar> || std::is_same_v<Op, ir::Where> ||
    std::is_same_v<Op, ir::MaskFill> || std::is_same_v<Op, ir::Cast> ||
    std::is_same_v<Op, ir::Activation>;

bool is_elementwise(const ir::Op& op) {
  return std::visit([](const auto& o) { return kIsElementwise<std::decay_t<decltype(o)>>; }, op);
}

/// Integer division and remainder throw on a zero divisor, an integer power on a negative
/// exponent (ndarray's arithmetic.h and binary.cpp); every other elementwise op is total.
bool may_fail_on_data(const ir::Op& op, DType dtype) {
  if (is_float(dtype)) return false;
  const auto fails = [](ir::BinaryOp binary) {
    return binary == ir::BinaryOp::Div || binary == ir::BinaryOp::Rem ||
           binary == ir::BinaryOp::Pow;
  };
  if (const auto* binary = std::get_if<ir::Binary>(&op)) return fails(binary->op);
  if (const auto* scalar = std::get_if<ir::BinaryScalar>(&op)) return fails(scalar->op);
  return false;
}

}  // namespace

FusibleOps::FusibleOps(const backend::FusionSupport& support)
    : max_rank_(support.max_rank),
      fuses_op_(support.fuses_op),
      fuses_expand_(support.fuses_expand) {
  for (const DType dtype : support.dtypes)
    dtypes_ |= 1u << static_cast<unsigned>(dtype);
}

bool FusibleOps::admits(const ir::Op& op, std::span<const backend::Operand> inputs,
                        std::span<const ir::TensorMeta> outputs) const {
  const bool expand = fuses_expand_ && std::holds_alternative<ir::Expand>(op);
  if (!(expand || is_elementwise(op)) || inputs.empty() || inputs.size() > kMaxArgs ||
      outputs.size() != 1)
    return false;
  if (!declared(outputs[0].dtype) || outputs[0].shape.rank() > max_rank_) return false;
  if (!expand && fuses_op_ != nullptr && !fuses_op_(op)) return false;
  // The ops that may fail (integer div, rem, pow) take one dtype: their first input's.
  if (may_fail_on_data(op, inputs[0].meta.dtype)) return false;
  return std::ranges::all_of(
      inputs, [&](const backend::Operand& input) { return declared(input.meta.dtype); });
}

}  // namespace ember::fusion
