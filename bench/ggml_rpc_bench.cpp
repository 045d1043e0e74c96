// ggml's RPC server moving the same tensors as remote_bench's transfer row (issue 17's peer):
//
//   ggml_rpc_bench [--server HOST:PORT] [--megabytes 64] [--repeats 5] [--warmup 2]
//
// Without --server it forks a child running ggml_backend_rpc_start_server on a free loopback port,
// serving ggml's CPU backend: a process of its own, as `ember serve` is in run_remote.sh. The
// client allocates one --megabytes f32 tensor in a buffer of the server's and times
// ggml_backend_tensor_set (upload) and ggml_backend_tensor_get (download) of it, --warmup untimed
// repetitions first. Prints one JSON line in the shape of remote_bench's transfer row: GB/s of
// each direction, the median of --repeats and the best (remote_bench's own statistic), and of the
// upload again in 8 MiB pieces (upload_pieces_*: below, why).
//
// Built only against a ggml fetched and built beside the project (EMBER_GGML_DIR,
// bench/CMakeLists.txt); docs/backends/remote.md says how.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpp.h"
#include "ggml-rpc.h"
#include "ggml.h"
#include "support/flags.h"
#include "support/median.h"

namespace {

using namespace ember;
using Clock = std::chrono::steady_clock;

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  return address;
}

/// A loopback port nothing listens on: the one the kernel picks for a socket bound to port 0.
int free_port() {
  const int probe = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = loopback(0);
  socklen_t length = sizeof(address);
  const bool bound = bind(probe, reinterpret_cast<sockaddr*>(&address), length) == 0 &&
                     getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(probe);
  if (!bound) throw std::runtime_error("no free loopback port");
  return ntohs(address.sin_port);
}

/// Whether something accepts a connection on 127.0.0.1:port. The probe is closed at once; ggml's
/// server takes it for a client that left and accepts the next.
bool listening(int port) {
  const int probe = socket(AF_INET, SOCK_STREAM, 0);
  const sockaddr_in address = loopback(port);
  const bool connected =
      connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  close(probe);
  return connected;
}

/// The child's whole life: ggml's server returns only when it cannot listen.
[[noreturn]] void serve(const std::string& endpoint) {
  // The server prints a banner and every connection on standard output, this program's JSON.
  const int null = open("/dev/null", O_WRONLY);
  if (null >= 0) dup2(null, STDOUT_FILENO);
  ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
  ggml_backend_rpc_start_server(endpoint.c_str(), nullptr, std::thread::hardware_concurrency(), 1,
                                &cpu);
  _exit(1);
}

/// ggml's RPC server in a child process on 127.0.0.1:port, killed when this goes.
class ServerProcess {
 public:
  explicit ServerProcess(int port) : pid_(fork()) {
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) serve("127.0.0.1:" + std::to_string(port));
    wait_until_listening(port);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess() {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }

 private:
  // ggml's client crashes when its first request finds no server, so the port is polled first.
  void wait_until_listening(int port) const {
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (!listening(port)) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) throw std::runtime_error("ggml's server died");
      if (Clock::now() > deadline) throw std::runtime_error("ggml's server does not listen");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  pid_t pid_;
};

/// A tensor of floats in a buffer of the server's, through ggml's RPC client.
struct RemoteTensor {
  ggml_backend_ptr backend;
  ggml_context_ptr context;
  ggml_tensor* tensor = nullptr;
  ggml_backend_buffer_ptr buffer;

  RemoteTensor(const std::string& endpoint, int64_t floats)
      : backend(ggml_backend_rpc_init(endpoint.c_str(), 0)),
        context(ggml_init({ggml_tensor_overhead(), nullptr, /*no_alloc=*/true})),
        tensor(ggml_new_tensor_1d(context.get(), GGML_TYPE_F32, floats)),
        buffer(ggml_backend_alloc_ctx_tensors(context.get(), backend.get())) {
    if (buffer == nullptr) throw std::runtime_error("ggml's server gave no buffer");
  }
};

/// Seconds of each of repeats runs of f, after warmup runs not timed.
template <typename F>
std::vector<double> timings(int64_t warmup, int64_t repeats, F&& f) {
  for (int64_t r = 0; r < warmup; ++r)
    f();
  std::vector<double> seconds;
  for (int64_t r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    f();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return seconds;
}

/// Sets the tensor from data in pieces of at most piece bytes, then waits for the server. A set
/// has no reply, so a 4-byte get after it, answered once the server has taken the bytes (it
/// serves requests in order), ends the upload, as the sync after remote_bench's upload does.
void upload(ggml_tensor* tensor, const std::vector<float>& data, std::size_t piece) {
  const std::size_t bytes = data.size() * sizeof(float);
  const auto* from = reinterpret_cast<const char*>(data.data());
  for (std::size_t at = 0; at < bytes; at += piece)
    ggml_backend_tensor_set(tensor, from + at, at, std::min(piece, bytes - at));
  float first = 0;
  ggml_backend_tensor_get(tensor, &first, 0, sizeof(first));
}

/// Seconds of each timed upload (whole, in pieces) and download of a tensor of bytes.
struct Timings {
  std::vector<double> upload, upload_pieces, download;
};

Timings measure(const std::string& endpoint, std::size_t bytes, int64_t warmup, int64_t repeats) {
  RemoteTensor remote(endpoint, static_cast<int64_t>(bytes / 4));
  const std::vector<float> data(bytes / 4, 0.5f);
  std::vector<float> back(bytes / 4);
  Timings timed;
  // One set_tensor of the whole tensor, as ggml's users call it: past 10 MiB ggml's client first
  // hashes the bytes (FNV-1a) and asks whether the server holds them cached (a round trip).
  timed.upload = timings(warmup, repeats, [&] { upload(remote.tensor, data, bytes); });
  // The same bytes in pieces below that threshold: the transfer without the hash.
  timed.upload_pieces = timings(warmup, repeats, [&] { upload(remote.tensor, data, 8 << 20); });
  timed.download = timings(warmup, repeats,
                           [&] { ggml_backend_tensor_get(remote.tensor, back.data(), 0, bytes); });
  if (back != data) throw std::runtime_error("the download differs from the upload");
  return timed;
}

void print_row(std::size_t bytes, const Timings& timed, int64_t warmup) {
  const double gb = static_cast<double>(bytes) / 1e9;
  const auto median = [gb](const std::vector<double>& seconds) {
    return gb / bench::median(seconds);
  };
  const auto best = [gb](const std::vector<double>& seconds) {
    return gb / *std::min_element(seconds.begin(), seconds.end());
  };
  std::printf(
      "{\"row\": \"ggml transfer\", \"megabytes\": %zu, \"upload_gbps\": %.3f, "
      "\"download_gbps\": %.3f, \"upload_best_gbps\": %.3f, \"download_best_gbps\": %.3f, "
      "\"upload_pieces_gbps\": %.3f, \"upload_pieces_best_gbps\": %.3f, \"warmup\": %lld, "
      "\"repeats\": %zu}\n",
      bytes >> 20, median(timed.upload), median(timed.download), best(timed.upload),
      best(timed.download), median(timed.upload_pieces), best(timed.upload_pieces),
      static_cast<long long>(warmup), timed.upload.size());
}

int run(const bench::Flags& flags) {
  std::unique_ptr<ServerProcess> server;
  std::string endpoint = flags.text("server", "");
  if (endpoint.empty()) {
    const int port = free_port();
    server = std::make_unique<ServerProcess>(port);
    endpoint = "127.0.0.1:" + std::to_string(port);
  }
  const auto bytes = static_cast<std::size_t>(flags.integer("megabytes", 64)) << 20;
  const int64_t warmup = flags.integer("warmup", 2);
  const int64_t repeats = std::max<int64_t>(flags.integer("repeats", 5), 1);
  print_row(bytes, measure(endpoint, bytes, warmup, repeats), warmup);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(bench::Flags(argc, argv, {"server", "megabytes", "repeats", "warmup"}));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ggml_rpc_bench: %s\n", e.what());
    return 1;
  }
}
