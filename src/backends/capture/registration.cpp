// The capture backend's registration (backends/registration.h).
#include "backends/registration.h"
#include "backends/capture/capture_backend.h"

namespace ember::backend {

Registration capture_registration() {
  return {DeviceType::Kind::Capture,
          [](const DispatchDevice&) -> std::unique_ptr<Backend> {
            return std::make_unique<capture::CaptureBackend>();
          },
          []() -> std::vector<DispatchDevice> { return {CaptureDevice{}}; }};
}

}  // namespace ember::backend
