// The CPU devices the interop tests run on (shared with tests/torch_interop, which cannot include
// <dlpack/dlpack.h> beside ATen's copy of it).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

/// The CPU devices compiled in: ndarray, flex, cpu, libtorch (each factory throws ConfigError
/// without its backend).
inline std::vector<Device> host_devices() {
  std::vector<Device> devices;
  for (auto factory : {&Device::ndarray, &Device::flex, &Device::cpu, &Device::libtorch}) {
    try {
      devices.push_back(factory());
    } catch (const ConfigError&) {
    }
  }
  return devices;
}

/// The devices that compute on foreign host memory (the others copy on import).
inline std::vector<Device> sharing_devices() {
  std::vector<Device> devices;
  for (const Device& device : host_devices()) {
    if (!(device == Device::ndarray())) devices.push_back(device);
  }
  return devices;
}

/// A device's name, for SCOPED_TRACE.
inline std::string name_of(const Device& device) {
  std::ostringstream os;
  os << device;
  return os.str();
}

}  // namespace ember::test
