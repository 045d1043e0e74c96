// The ember command.
#include <iostream>

#include <CLI/CLI.hpp>

#include "devices_command.h"
#include "ember/error.h"
#include "train_command.h"

int main(int argc, char** argv) {
  CLI::App app{"ember: a deep-learning framework whose device is the only thing you choose"};
  app.require_subcommand(1);
  ember::cli::add_devices_command(app);
  ember::cli::add_train_commands(app);
  try {
    CLI11_PARSE(app, argc, argv);
  } catch (const ember::Error& e) {
    std::cerr << "ember: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
