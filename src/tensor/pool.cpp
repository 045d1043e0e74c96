// STUB (to be replaced): the pool functions of ember::module.
#include <stdexcept>

#include "ember/pool.h"

namespace ember::ops {

TensorHandle max_pool(const TensorHandle&, const module::MaxPoolOptions&) {
  throw std::logic_error("not implemented yet");
}
std::pair<TensorHandle, TensorHandle> max_pool_with_indices(const TensorHandle&,
                                                            const module::MaxPoolOptions&) {
  throw std::logic_error("not implemented yet");
}
TensorHandle avg_pool(const TensorHandle&, const module::AvgPoolOptions&) {
  throw std::logic_error("not implemented yet");
}
TensorHandle adaptive_avg_pool(const TensorHandle&, const Dims&) {
  throw std::logic_error("not implemented yet");
}
std::pair<TensorHandle, TensorHandle> adaptive_max_pool_with_indices(const TensorHandle&,
                                                                     const Dims&) {
  throw std::logic_error("not implemented yet");
}

}  // namespace ember::ops
