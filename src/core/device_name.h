// Parsing device names: the inverse of ember::device_name, shared by Device::from_name, the
// EMBER_DEVICE variable and RemoteHost::tcp.
#pragma once

#include <string_view>

#include "ember/dispatch_device.h"

namespace ember::detail {

/// The descriptor a device name names (grammar in Device::from_name's comment). Does not check
/// that its backend is compiled in. InvalidArgument "[op] ..." naming the string when malformed.
DispatchDevice parse_device_name(std::string_view name, std::string_view op);

/// Checks a remote address "host:port" (non-empty host, port 1..65535); InvalidArgument
/// "[op] ..." naming the address otherwise.
void check_remote_address(std::string_view address, std::string_view op);

}  // namespace ember::detail
