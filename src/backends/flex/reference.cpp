#include "backends/flex/reference.h"

#include <vector>

#include "backends/ndarray/kernels.h"

namespace ember::flex {
namespace {

template <typename T>
T reference_value(const ir::Activation& op, T x) {
  const TensorData input(std::vector<T>{x}, Shape{1});
  const TensorData* inputs[] = {&input};
  const ir::TensorMeta outputs[] = {{Shape{1}, dtype_of<T>()}};
  return ndarray::run(op, inputs, outputs).template as<T>()[0];
}

}  // namespace

float reference_activation(const ir::Activation& op, float x) {
  return reference_value(op, x);
}
double reference_activation(const ir::Activation& op, double x) {
  return reference_value(op, x);
}

}  // namespace ember::flex
