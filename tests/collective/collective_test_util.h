// Helpers of the collective suite: the CPU devices a group is made of, tensors from values, and
// a free TCP port for a run across processes on loopback.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/collective.h"
#include "ember/ember.h"
#include "wire/socket.h"

namespace ember::test {

/// n ranks over the CPU devices in turn: cpu, flex, ndarray, cpu, ... (a device listed twice is
/// two ranks).
inline std::vector<Device> cpu_ranks(int n) {
  const std::vector<Device> kinds{Device::cpu(), Device::flex(), Device::ndarray()};
  std::vector<Device> devices;
  for (int i = 0; i < n; ++i)
    devices.push_back(kinds[static_cast<std::size_t>(i) % kinds.size()]);
  return devices;
}

template <typename T>
TensorHandle tensor_of(const std::vector<T>& values, Shape shape, const Device& device) {
  return ops::from_data(TensorData(values, std::move(shape)), TensorCreationOptions(device),
                        kind_of(dtype_of<T>()));
}

template <typename T>
std::vector<T> values_of(const TensorHandle& x) {
  return ops::into_data(x).to_vector<T>();
}

/// A port free now on loopback (the system's choice for port 0, released at once).
inline uint16_t free_port() {
  const wire::Listener listener("127.0.0.1", 0);
  return listener.port();
}

/// Process rank of world on loopback at port.
inline collective::ProcessInfo loopback_process(int rank, int world, uint16_t port) {
  return {.rank = rank, .world_size = world, .master_addr = "127.0.0.1", .master_port = port};
}

}  // namespace ember::test
