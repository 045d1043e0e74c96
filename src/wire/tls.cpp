#include "wire/tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <sys/socket.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>

#include "ember/error.h"

namespace ember::wire {
namespace {

/// OpenSSL's oldest queued error as text (the queue is then emptied).
std::string openssl_error() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no further detail";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

ssl_ctx_st* new_context(bool server) {
  SSL_CTX* context = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (context == nullptr) throw ConfigError("[remote] TLS: " + openssl_error());
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  return context;
}

// The TLS records go through a BIO of ours rather than OpenSSL's socket BIO, whose writes raise
// SIGPIPE on a closed connection (which would end the process): send with MSG_NOSIGNAL, as the
// plain socket does. A read past the socket's timeout (EAGAIN) is a retry, which fail() reports.

int descriptor_of(BIO* bio) {
  return static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(bio)));
}

int socket_write(BIO* bio, const char* data, int length) {
  BIO_clear_retry_flags(bio);
  ssize_t sent;
  do {
    sent = send(descriptor_of(bio), data, static_cast<std::size_t>(length), MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(bio);
  return static_cast<int>(sent);
}

int socket_read(BIO* bio, char* data, int length) {
  BIO_clear_retry_flags(bio);
  ssize_t got;
  do {
    got = recv(descriptor_of(bio), data, static_cast<std::size_t>(length), 0);
  } while (got < 0 && errno == EINTR);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_read(bio);
  return static_cast<int>(got);
}

long socket_control(BIO*, int command, long, void*) {
  return command == BIO_CTRL_FLUSH ? 1 : 0;  // nothing is buffered here
}

const BIO_METHOD* socket_method() {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* made = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "ember socket");
    BIO_meth_set_write(made, socket_write);
    BIO_meth_set_read(made, socket_read);
    BIO_meth_set_ctrl(made, socket_control);
    return made;
  }();
  return method;
}

BIO* socket_bio(int descriptor) {
  BIO* bio = BIO_new(socket_method());
  if (bio == nullptr) return nullptr;
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<intptr_t>(descriptor)));
  BIO_set_init(bio, 1);
  return bio;
}

bool is_address(const std::string& host) {
  in6_addr any{};
  return inet_pton(AF_INET, host.c_str(), &any) == 1 ||
         inet_pton(AF_INET6, host.c_str(), &any) == 1;
}

}  // namespace

std::shared_ptr<TlsContext> TlsContext::server(const std::string& certificate_file,
                                               const std::string& key_file) {
  std::shared_ptr<TlsContext> tls(new TlsContext(new_context(true), true));
  if (SSL_CTX_use_certificate_chain_file(tls->get(), certificate_file.c_str()) != 1)
    throw ConfigError("[ember serve] TLS certificate '" + certificate_file +
                      "': " + openssl_error());
  if (SSL_CTX_use_PrivateKey_file(tls->get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(tls->get()) != 1)
    throw ConfigError("[ember serve] TLS key '" + key_file + "': " + openssl_error());
  return tls;
}

std::shared_ptr<TlsContext> TlsContext::client(const std::string& trusted_file) {
  std::shared_ptr<TlsContext> tls(new TlsContext(new_context(false), false));
  if (SSL_CTX_load_verify_locations(tls->get(), trusted_file.c_str(), nullptr) != 1)
    throw ConfigError("[remote] TLS trusted certificates '" + trusted_file +
                      "': " + openssl_error());
  SSL_CTX_set_verify(tls->get(), SSL_VERIFY_PEER, nullptr);
  return tls;
}

TlsContext::~TlsContext() {
  SSL_CTX_free(context_);
}

TlsStream::TlsStream(Socket& socket, const TlsContext& context, const std::string& host)
    : socket_(socket), ssl_(SSL_new(context.get())) {
  BIO* bio = ssl_ != nullptr ? socket_bio(socket.descriptor()) : nullptr;
  if (bio == nullptr) {
    SSL_free(ssl_);
    throw ExecutionError("[remote " + peer() + "] TLS: " + openssl_error());
  }
  SSL_set_bio(ssl_, bio, bio);  // one reference, for both directions
  if (!context.is_server()) {
    // The certificate must name what the client connected to: an address or a host name.
    if (is_address(host)) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl_, host.c_str());
      SSL_set1_host(ssl_, host.c_str());
    }
  }
  const int result = context.is_server() ? SSL_accept(ssl_) : SSL_connect(ssl_);
  if (result != 1) {
    const long verified = SSL_get_verify_result(ssl_);
    const std::string why = !context.is_server() && verified != X509_V_OK
                                ? std::string("the server's certificate does not verify: ") +
                                      X509_verify_cert_error_string(verified)
                                : "";
    try {
      if (!why.empty()) throw ExecutionError("[remote " + peer() + "] TLS: " + why);
      fail("TLS handshake failed", result);
    } catch (...) {
      SSL_free(ssl_);  // the destructor does not run for a constructor that throws
      throw;
    }
  }
}

TlsStream::~TlsStream() {
  SSL_free(ssl_);
}

void TlsStream::fail(const std::string& what, int result) const {
  const int error = SSL_get_error(ssl_, result);
  if (error == SSL_ERROR_ZERO_RETURN)
    throw ExecutionError("[remote " + peer() + "] connection closed by the peer");
  if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE)
    throw ExecutionError("[remote " + peer() + "] timed out waiting for the peer");
  if (error == SSL_ERROR_SYSCALL) {
    const std::string reason = errno != 0 ? std::strerror(errno) : "the peer closed the connection";
    ERR_clear_error();
    throw ExecutionError("[remote " + peer() + "] " + what + ": " + reason);
  }
  throw ExecutionError("[remote " + peer() + "] " + what + ": " + openssl_error());
}

void TlsStream::read_exactly(std::span<std::byte> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    errno = 0;
    const int want = static_cast<int>(std::min<std::size_t>(bytes.size() - done, INT_MAX));
    const int got = SSL_read(ssl_, bytes.data() + done, want);
    if (got <= 0) fail("TLS read failed", got);
    done += static_cast<std::size_t>(got);
  }
}

void TlsStream::write_all(std::span<iovec> pieces) {
  for (const iovec& piece : pieces) {
    const auto* data = static_cast<const std::byte*>(piece.iov_base);
    for (std::size_t done = 0; done < piece.iov_len;) {
      errno = 0;
      const int want = static_cast<int>(std::min<std::size_t>(piece.iov_len - done, INT_MAX));
      const int sent = SSL_write(ssl_, data + done, want);
      if (sent <= 0) fail("TLS write failed", sent);
      done += static_cast<std::size_t>(sent);
    }
  }
}

}  // namespace ember::wire
