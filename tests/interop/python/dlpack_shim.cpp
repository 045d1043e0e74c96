// A C face of ember's DLPack interop for numpy_dlpack.py, which loads it with ctypes: one ember
// tensor at a time, exported to NumPy or imported from it, and its sum read back through ember.
#include <dlpack/dlpack.h>

#include <vector>

#include "ember/ember.h"

namespace {

/// The tensor the script works on (Python has no ember binding to hold one).
ember::TensorHandle& held() {
  static ember::TensorHandle tensor;
  return tensor;
}

}  // namespace

extern "C" {

/// Holds [[1, 2, 3], [4, 5, 6]] (f32, on cpu) and returns a DLManagedTensor sharing it.
void* ember_shim_export() {
  held() = ember::ops::from_data(
      ember::TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, ember::Shape{2, 3}),
      ember::Device::cpu(), ember::TensorKind::Float);
  return ember::interop::to_dlpack(held());
}

/// Holds the tensor over managed (a DLManagedTensor*), without a copy; 0 on success, 1 on an
/// ember::Error.
int ember_shim_import(void* managed) {
  try {
    held() = ember::interop::from_dlpack(static_cast<DLManagedTensor*>(managed),
                                         ember::Device::cpu(), ember::interop::Copy::Never);
    return 0;
  } catch (const ember::Error&) {
    return 1;
  }
}

/// The sum of the held tensor's values, read by ember now.
double ember_shim_sum() {
  double sum = 0;
  for (double v : ember::ops::into_data(held()).to_vector<double>())
    sum += v;
  return sum;
}

/// Where the held tensor's element [0, ..., 0] lies.
const void* ember_shim_data() {
  DLManagedTensor* managed = ember::interop::to_dlpack(held());
  const void* data = managed->dl_tensor.data;
  managed->deleter(managed);
  return data;
}

/// Lets go of the held tensor.
void ember_shim_release() {
  held() = ember::TensorHandle();
}

}  // extern "C"
