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

}  // namespace

bool is_fusible_dtype(DType dtype) {
  return dtype == DType::F32 || dtype == DType::Bool;
}

bool is_fusible(const ir::Op& op, std::span<const backend::Operand> inputs,
                std::span<const ir::TensorMeta> outputs) {
  const bool elementwise =
      std::visit([](const auto& o) { return kIsElementwise<std::decay_t<decltype(o)>>; }, op);
  return elementwise && inputs.size() <= kMaxArgs && outputs.size() == 1 &&
         is_fusible_dtype(outputs[0].dtype) &&
         std::ranges::all_of(inputs, [](const backend::Operand& input) {
           return is_fusible_dtype(input.meta.dtype);
         });
}

}  // namespace ember::fusion
