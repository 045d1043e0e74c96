// The remote backend's registration (backends/registration.h): it finds no device on this
// machine; a host's devices are listed by asking its server (RemoteHost::devices).
#include <variant>

#include "backends/registration.h"
#include "backends/remote/remote_backend.h"

namespace ember::backend {
namespace {

std::unique_ptr<Backend> create_remote(const DispatchDevice& d) {
  return remote::make_remote_backend(std::get<RemoteDevice>(d));
}

std::vector<DispatchDevice> enumerate_none() {
  return {};
}

}  // namespace

Registration remote_registration() {
  return {DeviceType::Kind::Remote, create_remote, enumerate_none, nullptr, nullptr,
          remote::hosted_devices};
}

}  // namespace ember::backend
