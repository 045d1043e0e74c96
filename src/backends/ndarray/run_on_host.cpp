#include "backends/ndarray/run_on_host.h"

#include <type_traits>
#include <variant>
#include <vector>

#include "backends/ndarray/kernels.h"

namespace ember::ndarray {

backend::Outputs run_on_host(backend::Backend& backend, const ir::Op& op,
                             std::span<const backend::Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
  std::vector<TensorData> host;
  host.reserve(inputs.size());
  for (const backend::Operand& input : inputs)
    host.push_back(backend.read(input));
  std::vector<const TensorData*> pointers;
  for (const TensorData& data : host)
    pointers.push_back(&data);
  backend::Outputs results;
  std::visit(
      [&](const auto& o) {
        auto computed = run(o, pointers, outputs);
        if constexpr (std::is_same_v<decltype(computed), TensorData>) {
          results.push_back(backend.write(computed));
        } else {
          for (const TensorData& data : computed)
            results.push_back(backend.write(data));
        }
      },
      op);
  return results;
}

}  // namespace ember::ndarray
