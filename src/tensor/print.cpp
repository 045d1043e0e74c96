// Printing a tensor: its metadata, then its values as TensorData prints them.
#include <ostream>

#include "ember/tensor.h"
#include "tensor/check.h"

namespace ember::detail {

std::ostream& print_tensor(std::ostream& os, const TensorHandle& h) {
  if (!h.defined()) return os << "Tensor { undefined }";
  os << "Tensor { shape: " << h.shape() << ", dtype: " << h.dtype() << ", device: " << h.device()
     << ", data: ";
  if (tensor::is_symbolic(h)) return os << "symbolic (replay its graph to compute it) }";
  print_values(os, ops::into_data(h));
  return os << " }";
}

}  // namespace ember::detail
