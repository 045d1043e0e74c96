// A device's settings in the remote protocol (proto::Settings), written and read in one place for
// the client (Device::settings, Device::configure) and the server.
#pragma once

#include "ember/device_settings.h"
#include "wire/protocol.capnp.h"

namespace ember::wire {

void encode_settings(const DeviceSettings& settings, proto::Settings::Builder message);
/// message's settings; InvalidArgument "[remote] settings: ..." naming a value that names no dtype
/// of its kind, or no precision.
DeviceSettings decode_settings(proto::Settings::Reader message);

}  // namespace ember::wire
