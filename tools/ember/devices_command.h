// `ember devices`: lists every device this build finds, with its capabilities.
#pragma once

#include <ostream>

#include <CLI/CLI.hpp>

namespace ember::cli {

/// Registers the `devices` subcommand on app.
void add_devices_command(CLI::App& app);

/// Writes one aligned block per enumerated device to out. ConfigError when no backend is
/// compiled in.
void print_devices(std::ostream& out);

}  // namespace ember::cli
