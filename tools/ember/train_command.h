// `ember train fashion-mnist` (the main job) and `ember eval CHECKPOINT`: the Fashion-MNIST CNN
// of examples/fashion_mnist.h, trained or evaluated on a chosen device.
#pragma once

#include <CLI/CLI.hpp>

namespace ember::cli {

/// Registers the `train` and `eval` subcommands on app.
void add_train_commands(CLI::App& app);

}  // namespace ember::cli
