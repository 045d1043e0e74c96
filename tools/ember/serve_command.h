// `ember serve`: hosts this machine's devices for remote clients (docs/backends/remote.md).
#pragma once

#include <CLI/CLI.hpp>

namespace ember::cli {

/// Registers the `serve` subcommand on app.
void add_serve_command(CLI::App& app);

}  // namespace ember::cli
