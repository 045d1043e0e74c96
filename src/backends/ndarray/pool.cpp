// STUB (to be replaced): ndarray kernels of the pool family.
#include "backends/ndarray/kernels.h"

namespace ember::ndarray {

std::vector<TensorData> run(const ir::Pool& op, Inputs, Outputs) {
  throw_unsupported(op, DType::F32);
}
std::vector<TensorData> run(const ir::AdaptivePool& op, Inputs, Outputs) {
  throw_unsupported(op, DType::F32);
}
TensorData run(const ir::AvgPoolGrad& op, Inputs, Outputs) {
  throw_unsupported(op, DType::F32);
}
TensorData run(const ir::AdaptiveAvgPoolGrad& op, Inputs, Outputs) {
  throw_unsupported(op, DType::F32);
}

}  // namespace ember::ndarray
