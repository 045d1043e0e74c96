#include "pytorch/pytorch_cases.h"

#include <algorithm>
#include <stdexcept>

namespace ember::test {
namespace {

std::string_view reduction_name(module::Reduction reduction) {
  switch (reduction) {
    case module::Reduction::Mean:
      return "mean";
    case module::Reduction::Sum:
      return "sum";
    case module::Reduction::None:
      return "none";
    case module::Reduction::BatchMean:
      return "batchmean";
  }
  throw std::logic_error("[pytorch] unknown reduction");
}

}  // namespace

const std::vector<TorchCase>& torch_cases() {
  static const std::vector<TorchCase> cases =
      concat({conv_torch_cases(), pool_torch_cases(), interpolate_torch_cases(),
              module_torch_cases(), loss_torch_cases(), activation_torch_cases()});
  return cases;
}

const TorchCase* find_torch_case(std::string_view name) {
  const auto& cases = torch_cases();
  const auto it = std::ranges::find_if(cases, [&](const TorchCase& c) { return c.name == name; });
  return it == cases.end() ? nullptr : &*it;
}

std::vector<TorchCase> concat(std::initializer_list<std::vector<TorchCase>> lists) {
  std::vector<TorchCase> all;
  for (const std::vector<TorchCase>& list : lists)
    all.insert(all.end(), list.begin(), list.end());
  return all;
}

ops::OptionalHandle optional_input(const ops::Handles& inputs, std::size_t i) {
  if (i < inputs.size()) return inputs[i];
  return std::nullopt;
}

std::vector<TorchCase> per_reduction(const std::string& name,
                                     std::initializer_list<module::Reduction> reductions,
                                     const TorchLoss& loss) {
  std::vector<TorchCase> cases;
  for (module::Reduction r : reductions) {
    cases.push_back({name + "/" + std::string(reduction_name(r)),
                     [loss, r](const ops::Handles& x) { return ops::Handles{loss(x, r)}; }});
  }
  return cases;
}

}  // namespace ember::test
