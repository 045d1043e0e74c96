// STUB (to be replaced): the conv functions of ember::module.
#include <stdexcept>

#include "ember/conv.h"

namespace ember::ops {

TensorHandle conv(const TensorHandle&, const TensorHandle&, const OptionalHandle&,
                  const module::ConvOptions&) {
  throw std::logic_error("not implemented yet");
}
TensorHandle conv_transpose(const TensorHandle&, const TensorHandle&, const OptionalHandle&,
                            const module::ConvTransposeOptions&) {
  throw std::logic_error("not implemented yet");
}

}  // namespace ember::ops
