// Fuzzes device names: detail::parse_device_name (every backend's names, compiled in or not) and
// Device::from_name. Bad names are refused with an ember::Error (ConfigError for a backend the
// fuzz build leaves out: it has ndarray alone). What parses has a canonical name that parses
// back to the same device and names itself, and operator<< prints that name.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "core/device_name.h"
#include "ember/device.h"
#include "fuzz_support.h"

namespace {

using ember::Device;
using ember::DispatchDevice;
using ember::fuzz::require;

constexpr std::string_view kOp = "fuzz";

template <typename T>
std::string printed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

void check_descriptor(const DispatchDevice& parsed) {
  const std::string name = ember::device_name(parsed);
  const DispatchDevice again = ember::detail::parse_device_name(name, kOp);
  require(again == parsed, "parse_device_name(device_name(d)) == d");
  require(ember::device_name(again) == name, "device_name is a fixed point of parsing");
  require(printed(parsed) == name, "operator<< prints a descriptor's device_name");
}

void check_device(const Device& device, const DispatchDevice& parsed) {
  require(device == Device(parsed), "from_name and parse_device_name agree");
  require(Device::from_name(device.name()) == device, "Device::from_name(d.name()) == d");
  require(printed(device) == device.name(), "operator<< prints a Device's name()");
  require(printed(device.autodiff()) == "autodiff(" + device.name() + ")",
          "operator<< wraps an autodiff Device's name() in autodiff(...)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  const auto parsed =
      ember::fuzz::parsed_or_refused([&] { return ember::detail::parse_device_name(name, kOp); });
  const auto device = ember::fuzz::parsed_or_refused([&] { return Device::from_name(name); });
  if (!parsed) {
    require(!device, "Device::from_name refuses what parse_device_name refuses");
    return 0;
  }
  check_descriptor(*parsed);
  if (device) check_device(*device, *parsed);
  return 0;
}
