// `ember serve`: runs a Server until SIGINT or SIGTERM, then stops it cleanly (every session's
// memory freed, every connection closed).
#include "serve_command.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/error.h"
#include "ember/serve.h"  // the options' defaults, with or without the server compiled in

#ifdef EMBER_WITH_REMOTE
#include <malloc.h>
#include <pthread.h>
#endif

namespace ember::cli {
namespace {

struct ServeArguments {
  std::string bind = "127.0.0.1";
  uint16_t port = 7070;
  std::string token_file;
  std::string tls_certificate;
  std::string tls_key;
  std::vector<std::string> devices;
  int64_t hello_timeout_ms = ServeOptions{}.hello_timeout.count();
  uint64_t max_batch_elements = ServeOptions{}.max_batch_elements;
  uint64_t max_batch_work = ServeOptions{}.max_batch_work;
};

#ifdef EMBER_WITH_REMOTE
/// The token: the file's first line, without its line end.
std::string read_token(const std::string& path) {
  std::ifstream file(path);
  std::string token;
  if (!file || !std::getline(file, token))
    throw ConfigError("[ember serve] cannot read a token from '" + path + "'");
  if (!token.empty() && token.back() == '\r') token.pop_back();
  if (token.empty()) throw ConfigError("[ember serve] the token file '" + path + "' is empty");
  return token;
}

/// Keeps the kernels' scratch memory (oneDNN's scratchpads, the fused programs' tiles: malloc'd
/// blocks of a few MiB, freed after each op) mapped between ops. Each connection runs its ops on a
/// thread of its own, whose malloc arena glibc trims (madvise DONTNEED) whenever its free top
/// passes the trim threshold, which in a server process stays small: glibc raises it only as
/// large mmapped blocks are freed, which a training client's process does at start (its data set)
/// and the server never does. The same step then faulted its scratch pages in afresh every time:
/// 96 000 page faults over 400 CNN steps against 35 000 with these thresholds (glibc's dynamic
/// maximums; bench/results/remote.md).
void keep_scratch_memory_mapped() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

void serve(const ServeArguments& arguments) {
  keep_scratch_memory_mapped();
  ServeOptions options;
  options.bind = arguments.bind;
  options.port = arguments.port;
  if (!arguments.token_file.empty()) options.credential = read_token(arguments.token_file);
  options.tls_certificate_file = arguments.tls_certificate;
  options.tls_key_file = arguments.tls_key;
  options.hello_timeout = std::chrono::milliseconds(arguments.hello_timeout_ms);
  options.max_batch_elements = arguments.max_batch_elements;
  options.max_batch_work = arguments.max_batch_work;
  for (const std::string& name : arguments.devices)
    options.devices.push_back(Device::from_name(name));
  // Every thread the server starts inherits the blocked signals; this one waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  Server server(std::move(options));
  int received = 0;
  sigwait(&stop_signals, &received);
  server.stop();
}
#else
void serve(const ServeArguments&) {
  throw ConfigError(
      "[ember serve] the remote backend is not compiled in; configure with "
      "-DEMBER_BACKEND_REMOTE=ON (it needs Cap'n Proto: Debian's capnproto and libcapnp-dev)");
}
#endif

}  // namespace

void add_serve_command(CLI::App& app) {
  auto arguments = std::make_shared<ServeArguments>();
  CLI::App* command = app.add_subcommand("serve", "Host this machine's devices for remote clients");
  command
      ->add_option("--bind", arguments->bind,
                   "Address to listen on (any but loopback needs --token-file)")
      ->capture_default_str();
  command->add_option("--port", arguments->port, "Port to listen on")->capture_default_str();
  command->add_option("--token-file", arguments->token_file,
                      "File whose first line is the credential clients must present");
  command->add_option("--tls-cert", arguments->tls_certificate,
                      "Serve over TLS with this certificate chain (PEM; needs --tls-key)");
  command->add_option("--tls-key", arguments->tls_key, "The TLS certificate's private key (PEM)");
  command->add_option("--device", arguments->devices,
                      "A device to serve (repeatable; default: every device)");
  command
      ->add_option(
          "--hello-timeout-ms", arguments->hello_timeout_ms,
          "Close a connection that has not completed its handshake in this time (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command
      ->add_option("--max-batch-elements", arguments->max_batch_elements,
                   "The most elements one batch of a client's ops may make")
      ->capture_default_str();
  command
      ->add_option("--max-batch-work", arguments->max_batch_work,
                   "The most element operations one batch of a client's ops may compute (a "
                   "matmul counts its products)")
      ->capture_default_str();
  command->callback([arguments] { serve(*arguments); });
}

}  // namespace ember::cli
