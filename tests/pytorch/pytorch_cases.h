// The C++ side of the PyTorch golden suite: for every case of tests/pytorch/generate.py, the
// ember function it checks, under the same name and with the same hyper-parameters (written
// again here, so a case cannot silently run with other options: its values would differ).
// pytorch_golden_test.cpp fails when a name is on one side only.
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "ember/functional.h"
#include "ember/tensor_ops.h"

namespace ember::test {

/// Runs the ember function on the case's inputs (uploaded in the JSON's order) and returns every
/// output PyTorch returned, the differentiated one first.
using TorchRun = std::function<ops::Handles(const ops::Handles& inputs)>;

struct TorchCase {
  std::string name;
  TorchRun run;
};

/// Every case, the families' lists one after the other.
const std::vector<TorchCase>& torch_cases();
std::vector<TorchCase> conv_torch_cases();
std::vector<TorchCase> pool_torch_cases();
std::vector<TorchCase> interpolate_torch_cases();
std::vector<TorchCase> module_torch_cases();
std::vector<TorchCase> loss_torch_cases();
std::vector<TorchCase> activation_torch_cases();

/// The case called name; nullptr when there is none.
const TorchCase* find_torch_case(std::string_view name);
/// The lists one after the other.
std::vector<TorchCase> concat(std::initializer_list<std::vector<TorchCase>> lists);

/// inputs[i] when there are more than i inputs (an optional bias, weight, mask), else nullopt.
ops::OptionalHandle optional_input(const ops::Handles& inputs, std::size_t i);

/// A loss of the inputs with a reduction.
using TorchLoss = std::function<TensorHandle(const ops::Handles& inputs, module::Reduction)>;
/// One case per reduction, named name + "/mean", "/sum", "/none" or "/batchmean" (as
/// generate.py's loss_case).
std::vector<TorchCase> per_reduction(const std::string& name,
                                     std::initializer_list<module::Reduction> reductions,
                                     const TorchLoss& loss);

}  // namespace ember::test
