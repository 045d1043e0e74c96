// The remote device over loopback, against what the same work costs without it, in one run:
//
//   remote_bench [--server HOST:PORT] [--ops 2000] [--megabytes 64] [--repeats 5]
//
// Without --server it starts a Server (serving cpu) in this process on 127.0.0.1. Prints one
// JSON line per row:
//   * tiny ops (add_scalar on 16 floats, chained): µs per op batched (one read at the end) and
//     unbatched (a sync after each op: a round trip each), and on the local cpu device;
//   * upload and download of a --megabytes f32 tensor: GB/s, against a raw TCP copy of the same
//     bytes over loopback (two sockets with the protocol's options, no framing, one buffer on each
//     side reused from copy to copy: the ceiling of the transport).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "ember/serve.h"
#include "support/flags.h"

namespace {

using namespace ember;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The best of repeats runs of f, in seconds.
template <typename F>
double best_of(int64_t repeats, F&& f) {
  double best = 1e30;
  for (int64_t r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    f();
    best = std::min(best, seconds_since(start));
  }
  return best;
}

/// Microseconds per op of a chain of ops add_scalar ops, synced after each when unbatched.
double tiny_op_us(const Device& device, int64_t ops, bool sync_each, int64_t repeats) {
  const TensorData values(std::vector<float>(16, 1.0f), Shape{16});
  const double seconds = best_of(repeats, [&] {
    TensorHandle x = ops::from_data(values, device, TensorKind::Float);
    for (int64_t i = 0; i < ops; ++i) {
      x = ops::add_scalar(x, Scalar(1.0));
      if (sync_each) device.sync();
    }
    (void)ops::into_data(x);
  });
  return seconds * 1e6 / static_cast<double>(ops);
}

/// bytes of host memory of the kind ember keeps a large tensor in (src/core/host_blocks.cpp, not
/// reachable from here): on a huge-page boundary, advised for transparent huge pages.
std::shared_ptr<std::byte> host_block(std::size_t bytes) {
  constexpr std::align_val_t kHugePage{std::size_t{2} << 20};
  auto* block = static_cast<std::byte*>(::operator new(bytes, kHugePage));
  madvise(block, bytes, MADV_HUGEPAGE);
  return {block, [](std::byte* memory) { ::operator delete(memory, kHugePage); }};
}

/// GB/s of sending bytes over a fresh loopback TCP connection to a thread that reads them all.
double raw_tcp_gbps(std::size_t bytes, int64_t repeats) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  listen(listener, 1);
  const int sender = socket(AF_INET, SOCK_STREAM, 0);
  connect(sender, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  const int receiver = accept(listener, nullptr, nullptr);
  // The socket options of the remote protocol's connections (wire/socket.cpp), so that the two
  // differ only in what runs around the copy.
  const int on = 1;
  setsockopt(sender, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
  setsockopt(receiver, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
  // Memory of the kind ember's transfers read into and write from (huge pages where the kernel
  // gives them), each buffer reused as the pools reuse theirs.
  const std::shared_ptr<std::byte> out = host_block(bytes);
  const std::shared_ptr<std::byte> in = host_block(bytes);
  std::fill_n(out.get(), bytes, std::byte{1});
  const double seconds = best_of(repeats, [&] {
    std::thread reading([&] {
      for (std::size_t got = 0; got < bytes;) {
        const ssize_t n = recv(receiver, in.get() + got, bytes - got, 0);
        if (n <= 0) return;
        got += static_cast<std::size_t>(n);
      }
    });
    for (std::size_t sent = 0; sent < bytes;) {
      const ssize_t n = send(sender, out.get() + sent, bytes - sent, 0);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    reading.join();
  });
  close(sender);
  close(receiver);
  close(listener);
  return static_cast<double>(bytes) / seconds / 1e9;
}

int run(const bench::Flags& flags) {
  std::unique_ptr<Server> server;
  std::string address = flags.text("server", "");
  if (address.empty()) {
    ServeOptions options;
    options.devices = {Device::cpu()};
    options.log = [](const std::string&) {};
    server = std::make_unique<Server>(std::move(options));
    address = "127.0.0.1:" + std::to_string(server->port());
  }
  const Device remote = Device::remote(RemoteHost::tcp(address));
  const Device local = Device::cpu();
  const int64_t ops = flags.integer("ops", 2000);
  const int64_t repeats = flags.integer("repeats", 5);
  std::printf(
      "{\"row\": \"tiny op\", \"remote_batched_us\": %.2f, \"remote_unbatched_us\": %.2f, "
      "\"local_cpu_us\": %.2f}\n",
      tiny_op_us(remote, ops, false, repeats), tiny_op_us(remote, ops, true, repeats),
      tiny_op_us(local, ops, false, repeats));

  const auto bytes = static_cast<std::size_t>(flags.integer("megabytes", 64)) << 20;
  const TensorData data(std::vector<float>(bytes / 4, 0.5f),
                        Shape{static_cast<int64_t>(bytes / 4)});
  TensorHandle on_server;
  const double upload = best_of(repeats, [&] {
    on_server = ops::from_data(data, remote, TensorKind::Float);
    remote.sync();
  });
  const double download = best_of(repeats, [&] { (void)ops::into_data(on_server); });
  const double raw = raw_tcp_gbps(bytes, repeats);
  const double gb = static_cast<double>(bytes) / 1e9;
  std::printf(
      "{\"row\": \"transfer\", \"megabytes\": %zu, \"upload_gbps\": %.3f, \"download_gbps\": %.3f, "
      "\"raw_tcp_gbps\": %.3f, \"upload_vs_raw\": %.3f, \"download_vs_raw\": %.3f}\n",
      bytes >> 20, gb / upload, gb / download, raw, gb / upload / raw, gb / download / raw);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(bench::Flags(argc, argv, {"server", "ops", "megabytes", "repeats"}));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "remote_bench: %s\n", e.what());
    return 1;
  }
}
