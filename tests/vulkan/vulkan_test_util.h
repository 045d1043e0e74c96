// The Vulkan device of the vulkan tests: the first one Device::enumerate finds (lavapipe in CI,
// where scripts/install-deps installs mesa-vulkan-drivers), and a skip that says why where there
// is none.
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "ember/device.h"
#include "ember/devices.h"

namespace ember::test {

inline std::optional<Device> first_vulkan_device() {
  const Devices devices = Device::enumerate(DeviceType::Vulkan);
  if (devices.empty()) return std::nullopt;
  return devices[0];
}

}  // namespace ember::test

/// Declares device (a std::optional<Device>) as the first Vulkan device, or skips the test
/// saying why.
#define EMBER_SKIP_WITHOUT_VULKAN(device)                                                       \
  const std::optional<Device> device = ::ember::test::first_vulkan_device();                    \
  if (!device)                                                                                  \
  GTEST_SKIP() << "no Vulkan driver on this machine (Device::enumerate(DeviceType::Vulkan) is " \
                  "empty): install mesa-vulkan-drivers (scripts/install-deps) for lavapipe"
