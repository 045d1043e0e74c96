// Timestamps for profile on the device clock: a timestamp query written into the command stream
// after the work recorded so far (wgpu-native's timestamps between passes), resolved and copied
// into a readable buffer in the same batch, read when a duration is asked for.
#pragma once

#include <memory>

#include "backends/backend.h"
#include "backends/wgpu/command_stream.h"

namespace ember::wgpu {

/// A timestamp after the work recorded so far on stream's device, which must have timestamps
/// (Adapter::timestamps; the context requested the features).
std::shared_ptr<backend::DeviceTimestamp> record_timestamp(std::shared_ptr<CommandStream> stream,
                                                           std::shared_ptr<Context> context);

}  // namespace ember::wgpu
