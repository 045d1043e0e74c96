// Server: a thread accepting connections and one thread per connection (serve_connection). The
// sockets stay owned here, so that stop() can end every connection from its own thread.
#include <chrono>
#include <ctime>
#include <iostream>
#include <list>
#include <mutex>
#include <thread>

#include "ember/devices.h"
#include "ember/error.h"
#include "ember/serve.h"
#include "serve/hello_deadlines.h"
#include "serve/serve_state.h"
#include "serve/session.h"
#include "wire/channel.h"
#include "wire/socket.h"
#include "wire/tls.h"

namespace ember {

namespace serve {

void Shared::log(const std::string& line) const {
  if (options.log) return options.log(line);
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%F %T", std::localtime(&now));
  std::cerr << stamp << " ember serve: " << line << std::endl;
}

/// One client: its socket and the thread serving it.
struct Connection {
  wire::Socket socket;
  std::thread thread;
  bool finished = false;
};

}  // namespace serve

struct Server::State : serve::Shared {
  explicit State(ServeOptions given) : Shared(std::move(given)) {}

  std::unique_ptr<wire::Listener> listener;
  std::unique_ptr<serve::HelloDeadlines> deadlines;
  std::thread acceptor;
  std::mutex mutex;  // guards connections and stopped
  std::list<serve::Connection> connections;
  bool stopped = false;

  void accept_all();
  /// Answers a connection over max_connections with the reason and closes it.
  void refuse(wire::Socket& socket);
  void join_finished();
  void stop();
};

void Server::State::accept_all() {
  for (;;) {
    wire::Socket socket = listener->accept();
    const std::lock_guard lock(mutex);
    if (stopped || !socket.is_open()) return;
    join_finished();
    if (connections.size() >= options.max_connections) {
      refuse(socket);
      continue;
    }
    serve::Connection& connection = connections.emplace_back();
    connection.socket = std::move(socket);
    const uint64_t ticket = deadlines->watch(connection.socket);
    connection.thread = std::thread([this, &connection, ticket] {
      serve::serve_connection(connection.socket, *this, [&] { deadlines->forget(ticket); });
      deadlines->forget(ticket);  // before the socket can be reaped
      const std::lock_guard done(mutex);
      connection.finished = true;
    });
  }
}

void Server::State::refuse(wire::Socket& socket) {
  const std::string why = "the server serves at most " + std::to_string(options.max_connections) +
                          " connections at once";
  log(socket.peer() + ": refused: " + why);
  // A client without TLS reads the reason as the answer to its hello; under TLS it could not
  // read it before a handshake, which would cost a thread: the connection just closes.
  if (tls) return;
  socket.set_timeout(std::chrono::seconds(1));
  wire::Channel channel(socket, options.max_message_bytes);
  wire::send_error(channel, why);
}

void Server::State::join_finished() {
  for (auto it = connections.begin(); it != connections.end();) {
    if (!it->finished) {
      ++it;
      continue;
    }
    it->thread.join();
    it = connections.erase(it);
  }
}

void Server::State::stop() {
  {
    const std::lock_guard lock(mutex);
    if (stopped) return;
    stopped = true;
    listener->shutdown();
    for (serve::Connection& connection : connections)
      connection.socket.shutdown();
  }
  acceptor.join();
  for (serve::Connection& connection : connections)
    connection.thread.join();
  connections.clear();
  log("stopped");
}

namespace {

std::vector<Device> served_devices(const std::vector<Device>& asked) {
  if (!asked.empty()) return asked;
  const Devices found = Device::enumerate(DeviceFilter::all());
  return {found.begin(), found.end()};
}

}  // namespace

Server::Server(ServeOptions options) {
  if (!wire::is_loopback(options.bind) && options.credential.empty())
    throw ConfigError("[ember serve] binding " + options.bind +
                      ", which is not a loopback address, needs a credential (--token-file)");
  options.devices = served_devices(options.devices);
  if (options.devices.empty()) throw ConfigError("[ember serve] no device to serve");
  if (options.tls_certificate_file.empty() != options.tls_key_file.empty())
    throw ConfigError("[ember serve] TLS needs both a certificate and a key file");
  state_ = std::make_shared<State>(std::move(options));
  if (!state_->options.tls_certificate_file.empty())
    state_->tls = wire::TlsContext::server(state_->options.tls_certificate_file,
                                           state_->options.tls_key_file);
  state_->listener = std::make_unique<wire::Listener>(state_->options.bind, state_->options.port);
  state_->deadlines =
      std::make_unique<serve::HelloDeadlines>(*state_, state_->options.hello_timeout);
  state_->acceptor = std::thread([state = state_.get()] { state->accept_all(); });
  std::string served;
  for (const Device& device : state_->options.devices)
    served += " " + device_name(device.as_dispatch());
  state_->log("listening on " + state_->options.bind + ":" + std::to_string(port()) +
              (state_->tls ? " (TLS)" : "") + ", serving" + served);
}

Server::~Server() {
  stop();
}

uint16_t Server::port() const {
  return state_->listener->port();
}

void Server::stop() {
  if (state_) state_->stop();
}

std::size_t Server::open_sessions() const {
  return state_->sessions.load();
}

std::size_t Server::session_bytes() const {
  return state_->bytes.load();
}

std::size_t Server::replays() const {
  return state_->replays.load();
}

}  // namespace ember
