// The ndarray backend's registration (backends/registration.h).
#include "backends/registration.h"
#include "backends/ndarray/ndarray_backend.h"

namespace ember::backend {

Registration ndarray_registration() {
  return {DeviceType::Kind::NdArray,
          [](const DispatchDevice&) -> std::unique_ptr<Backend> {
            return std::make_unique<ndarray::NdArrayBackend>();
          },
          []() -> std::vector<DispatchDevice> { return {NdArrayDevice{}}; }};
}

}  // namespace ember::backend
