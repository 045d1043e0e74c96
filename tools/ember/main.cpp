// The ember command.
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "devices_command.h"
#include "onnx_command.h"
#include "serve_command.h"
#include "train_command.h"

int main(int argc, char** argv) {
  CLI::App app{"ember: a deep-learning framework whose device is the only thing you choose"};
  app.require_subcommand(1);
  ember::cli::add_devices_command(app);
  ember::cli::add_train_commands(app);
  ember::cli::add_serve_command(app);
  ember::cli::add_onnx_command(app);
  // Every failure ends here as one line "ember: <message>" and exit status 1; nothing aborts.
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e);
  } catch (const CLI::Error& e) {  // a malformed command line
    std::cerr << "ember: " << e.what() << "\nRun with --help for more information.\n";
    return 1;
  } catch (const std::exception& e) {  // ember::Error, and anything a library let escape
    std::cerr << "ember: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
