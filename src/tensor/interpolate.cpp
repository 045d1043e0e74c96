// STUB (to be replaced): the interpolate functions of ember::module.
#include <stdexcept>

#include "ember/interpolate.h"

namespace ember::ops {

TensorHandle interpolate(const TensorHandle&, const module::InterpolateOptions&) {
  throw std::logic_error("not implemented yet");
}

}  // namespace ember::ops
