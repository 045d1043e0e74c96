// TLS for the remote protocol, through OpenSSL: a server presents its certificate, a client
// checks it against the certificates it trusts and the name or address it connected to. TLS 1.2
// at least. OpenSSL's headers stay in tls.cpp.
#pragma once

#include <memory>
#include <string>

#include "wire/socket.h"
#include "wire/stream.h"

struct ssl_st;
struct ssl_ctx_st;

namespace ember::wire {

/// One side's OpenSSL context; ConfigError naming the file when a certificate or key cannot be
/// loaded.
class TlsContext {
 public:
  /// A server's: its certificate chain and private key (PEM files).
  static std::shared_ptr<TlsContext> server(const std::string& certificate_file,
                                            const std::string& key_file);
  /// A client's: the certificates it trusts (a PEM file).
  static std::shared_ptr<TlsContext> client(const std::string& trusted_file);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  ssl_ctx_st* get() const { return context_; }
  bool is_server() const { return server_; }

 private:
  TlsContext(ssl_ctx_st* context, bool server) : context_(context), server_(server) {}
  ssl_ctx_st* context_;
  bool server_;
};

/// TLS over socket (which must outlive it); the handshake runs in the constructor, and a failed
/// one (a peer without TLS, a certificate that does not verify) is an ExecutionError saying why.
/// host: the name or address the client connected to, checked against the server's certificate
/// (unused by a server).
class TlsStream final : public Stream {
 public:
  TlsStream(Socket& socket, const TlsContext& context, const std::string& host);
  ~TlsStream() override;
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  void read_exactly(std::span<std::byte> bytes) override;
  void write_all(std::span<iovec> pieces) override;
  void shutdown() noexcept override { socket_.shutdown(); }
  const std::string& peer() const override { return socket_.peer(); }

 private:
  [[noreturn]] void fail(const std::string& what, int result) const;

  Socket& socket_;
  ssl_st* ssl_;
};

}  // namespace ember::wire
