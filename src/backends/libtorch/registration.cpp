// The libtorch backend's registration (backends/registration.h).
#include "backends/registration.h"
#include "backends/libtorch/libtorch_backend.h"

namespace ember::backend {

Registration libtorch_registration() {
  Registration registration{DeviceType::Kind::LibTorch,
                            [](const DispatchDevice& d) {
                              return libtorch::make_libtorch_backend(std::get<LibTorchDevice>(d));
                            },
                            libtorch::libtorch_devices};
  registration.require_buildable = libtorch::require_buildable;
  return registration;
}

}  // namespace ember::backend
