// `ember devices`: one block of aligned "key  value" lines per device.
#include "devices_command.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "core/device_context.h"
#include "ember/device.h"

namespace ember::cli {

namespace {

using Row = std::pair<std::string, std::string>;

/// The hardware ordinal a descriptor carries (0 for backends with a single device).
uint32_t index_of(const DispatchDevice& d) {
  return std::visit(
      []<typename T>(const T& device) -> uint32_t {
        if constexpr (requires { device.kind.index(); })
          return device.kind.index();
        else if constexpr (requires { device.index; })
          return device.index;
        else
          return 0;
      },
      d);
}

std::string supported_dtypes(const Device& device) {
  std::string names;
  for (DType dtype : kAllDTypes) {
    if (!device.supports_dtype(dtype)) continue;
    if (!names.empty()) names += ' ';
    names += dtype_name(dtype);
  }
  return names;
}

std::string default_dtypes(const Device& device) {
  const DeviceSettings s = device.settings();
  return "float " + std::string(dtype_name(to_dtype(s.float_dtype))) + ", int " +
         std::string(dtype_name(to_dtype(s.int_dtype))) + ", bool " +
         std::string(dtype_name(to_dtype(s.bool_dtype)));
}

std::string memory_usage(const Device& device) {
  const auto usage = device.memory_pool_usage();
  if (!usage) return "n/a";
  return std::to_string(usage->bytes_in_use) + " bytes in use, " +
         std::to_string(usage->bytes_reserved) + " reserved, " +
         std::to_string(usage->number_allocs) + " allocations";
}

std::vector<Row> describe(const Device& device, bool is_default) {
  const DispatchDevice& d = device.as_dispatch();
  return {{"backend", backend_name(d)},
          {"index", std::to_string(index_of(d))},
          {"description", detail::DeviceContext::of(d)->backend().description()},
          {"default device", is_default ? "yes" : "no"},
          {"default dtypes", default_dtypes(device)},
          {"supported dtypes", supported_dtypes(device)},
          {"memory", memory_usage(device)}};
}

void print_block(std::ostream& out, const std::string& title, const std::vector<Row>& rows) {
  std::size_t width = 0;
  for (const auto& [key, value] : rows)
    width = std::max(width, key.size());
  out << title << '\n';
  for (const auto& [key, value] : rows) {
    out << "  " << key << std::string(width - key.size() + 2, ' ') << value << '\n';
  }
}

}  // namespace

void print_devices(std::ostream& out) {
  // Asked first so that a build without backends fails with the ConfigError naming the options.
  const Device default_device = Device::default_device();
  for (const Device& device : Device::enumerate(DeviceFilter::all())) {
    print_block(out, device.name(), describe(device, device == default_device));
  }
}

void add_devices_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "devices", "List every device this build finds: backend, index, description, dtypes, memory");
  command->callback([] { print_devices(std::cout); });
}

}  // namespace ember::cli
