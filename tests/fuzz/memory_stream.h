// A wire::Stream in memory, for the targets that drive a whole connection (the remote server's
// session, the rendezvous store) in process, without sockets: the fuzzer's input as a peer's
// bytes (what the server writes back dropped, or kept to look at), or a loop that reads back what
// was written (a round trip through a writer and a reader; seeds written by the client's writer).
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "ember/error.h"
#include "wire/stream.h"

namespace ember::fuzz {

class MemoryStream final : public wire::Stream {
 public:
  /// A loop: reads take back what was written, in order.
  MemoryStream() : loop_(true), keep_(true) {}
  /// Reads take input's bytes in order; what is written is kept only with keep.
  explicit MemoryStream(std::span<const std::byte> input, bool keep = false)
      : input_(input), keep_(keep) {}

  /// ExecutionError past the end, as a socket whose peer closed it.
  void read_exactly(std::span<std::byte> bytes) override {
    const std::span<const std::byte> source = loop_ ? std::span<const std::byte>(written_) : input_;
    if (bytes.size() > source.size() - read_) throw ExecutionError("[fuzz] the input ends");
    if (!bytes.empty()) std::memcpy(bytes.data(), source.data() + read_, bytes.size());
    read_ += bytes.size();
  }
  void write_all(std::span<iovec> pieces) override {
    if (!keep_) return;
    for (const iovec& piece : pieces) {
      const auto* first = static_cast<const std::byte*>(piece.iov_base);
      written_.insert(written_.end(), first, first + piece.iov_len);
    }
  }
  void shutdown() noexcept override {}
  const std::string& peer() const override { return peer_; }

  /// What was written, when kept.
  const std::vector<std::byte>& written_bytes() const { return written_; }

 private:
  std::span<const std::byte> input_;
  bool loop_ = false;
  bool keep_;
  std::vector<std::byte> written_;
  std::size_t read_ = 0;
  std::string peer_ = "fuzz";
};

}  // namespace ember::fuzz
