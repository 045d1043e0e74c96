// The flex backend's registration (backends/registration.h), with the thread pool every CPU
// backend's kernels run on.
#include "backends/registration.h"
#include "backends/flex/flex_backend.h"
#include "backends/flex/thread_pool.h"

namespace ember::backend {

Registration flex_registration() {
  return {DeviceType::Kind::Flex,
          [](const DispatchDevice&) -> std::unique_ptr<Backend> {
            return std::make_unique<flex::FlexBackend>();
          },
          []() -> std::vector<DispatchDevice> { return {FlexDevice{}}; },
          [] { return flex::ThreadPool::instance().threads(); },
          [](int threads) { flex::ThreadPool::instance().set_threads(threads); }};
}

}  // namespace ember::backend
