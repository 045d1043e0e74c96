// The cpu backend's registration (backends/registration.h). Its kernels run on flex's thread
// pool, which flex registers.
#include "backends/registration.h"
#include "backends/cpu/cpu_backend.h"

namespace ember::backend {

Registration cpu_registration() {
  return {DeviceType::Kind::Cpu,
          [](const DispatchDevice&) -> std::unique_ptr<Backend> { return cpu::make_cpu_backend(); },
          []() -> std::vector<DispatchDevice> { return {CpuDevice{}}; }};
}

}  // namespace ember::backend
