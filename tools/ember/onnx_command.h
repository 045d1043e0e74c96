// `ember onnx info MODEL` and `ember onnx run MODEL --device NAME --input name=file.npy ...
// --output DIR`: inspect an ONNX model and run it on any device (docs/onnx.md).
#pragma once

#include <ostream>

#include <CLI/CLI.hpp>

#include "ember/onnx.h"

namespace ember::cli {

/// Registers the `onnx` subcommand (with `info` and `run`) on app.
void add_onnx_command(CLI::App& app);

/// Writes what `ember onnx info` prints of model: its inputs and outputs (name, dtype, dims, "?"
/// for a symbolic one), its initializers' count and bytes, and each op type with its count and
/// whether ember imports it.
void print_onnx_info(std::ostream& out, const onnx::Model& model);

}  // namespace ember::cli
