// STUB (to be replaced): ndarray kernels of the interpolate family.
#include "backends/ndarray/kernels.h"

namespace ember::ndarray {

TensorData run(const ir::Interpolate& op, Inputs, Outputs) {
  throw_unsupported(op, DType::F32);
}
TensorData run(const ir::InterpolateGrad& op, Inputs, Outputs) {
  throw_unsupported(op, DType::F32);
}

}  // namespace ember::ndarray
