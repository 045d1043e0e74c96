// STUB (to be replaced): ndarray kernels of the conv family.
#include "backends/ndarray/kernels.h"

namespace ember::ndarray {

TensorData run(const ir::Conv& op, Inputs, Outputs) {
  throw_unsupported(op, DType::F32);
}
TensorData run(const ir::ConvWeightGrad& op, Inputs, Outputs) {
  throw_unsupported(op, DType::F32);
}

}  // namespace ember::ndarray
