#include "wire/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <utility>

#include "ember/error.h"

namespace ember::wire {
namespace {

[[noreturn]] void fail_io(const std::string& peer, const std::string& what, int error) {
  throw ExecutionError("[remote " + peer + "] " + what + ": " + std::strerror(error));
}

using AddressList = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

AddressList resolve(const std::string& host, uint16_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int status = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); status != 0)
    throw ExecutionError("[remote " + host + ":" + service + "] cannot resolve '" + host +
                         "': " + gai_strerror(status));
  return {found, &freeaddrinfo};
}

/// Connects fd to address within timeout (non-blocking connect, then poll).
bool connect_within(int fd, const addrinfo& address, std::chrono::milliseconds timeout,
                    int& error) {
  const int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  if (::connect(fd, address.ai_addr, address.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      error = errno;
      return false;
    }
    pollfd wait{fd, POLLOUT, 0};
    const int ready = poll(&wait, 1, timeout.count() > 0 ? static_cast<int>(timeout.count()) : -1);
    socklen_t length = sizeof(error);
    if (ready <= 0) {
      error = ready == 0 ? ETIMEDOUT : errno;
      return false;
    }
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) return false;
  }
  fcntl(fd, F_SETFL, flags);
  return true;
}

void set_no_delay(int fd) {
  const int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

}  // namespace

std::pair<std::string, uint16_t> split_address(const std::string& address) {
  const auto colon = address.rfind(':');
  const auto fail = [&] {
    throw InvalidArgument("[remote] address '" + address +
                          "' is not HOST:PORT with PORT in 1..65535");
  };
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) fail();
  std::string host = address.substr(0, colon);
  const std::string port_text = address.substr(colon + 1);
  if (!std::ranges::all_of(port_text, [](char c) { return c >= '0' && c <= '9'; }) ||
      port_text.size() > 5)
    fail();
  const int port = std::stoi(port_text);
  if (port < 1 || port > 65535) fail();
  if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, static_cast<uint16_t>(port)};
}

bool is_loopback(const std::string& address) {
  in_addr v4{};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, address.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return address == "localhost";
}

Socket::Socket(Socket&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), peer_(std::move(other.peer_)) {}

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    peer_ = std::move(other.peer_);
  }
  return *this;
}

Socket::~Socket() {
  if (fd_ >= 0) close(fd_);
}

Socket Socket::connect(const std::string& address, std::chrono::milliseconds timeout) {
  const auto [host, port] = split_address(address);
  const AddressList found = resolve(host, port, false);
  int error = 0;
  for (const addrinfo* candidate = found.get(); candidate != nullptr;
       candidate = candidate->ai_next) {
    const int fd =
        socket(candidate->ai_family, candidate->ai_socktype | SOCK_CLOEXEC, candidate->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    if (connect_within(fd, *candidate, timeout, error)) {
      set_no_delay(fd);
      Socket socket(fd, address);
      socket.set_timeout(timeout);
      return socket;
    }
    close(fd);
  }
  fail_io(address, "cannot connect", error);
}

void Socket::set_timeout(std::chrono::milliseconds timeout) {
  timeval limit{};
  limit.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  limit.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
}

void Socket::read_exactly(std::span<std::byte> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = recv(fd_, bytes.data() + done, bytes.size() - done, 0);
    if (got > 0) {
      done += static_cast<std::size_t>(got);
    } else if (got == 0) {
      throw ExecutionError("[remote " + peer_ + "] connection closed by the peer");
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      throw ExecutionError("[remote " + peer_ + "] timed out waiting for the peer");
    } else if (errno != EINTR) {
      fail_io(peer_, "read failed", errno);
    }
  }
}

void Socket::write_all(std::span<iovec> pieces) {
  std::size_t first = 0;
  while (first < pieces.size()) {
    msghdr message{};
    message.msg_iov = pieces.data() + first;
    message.msg_iovlen = std::min<std::size_t>(pieces.size() - first, IOV_MAX);
    const ssize_t sent = sendmsg(fd_, &message, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        throw ExecutionError("[remote " + peer_ + "] timed out sending to the peer");
      fail_io(peer_, "write failed", errno);
    }
    auto left = static_cast<std::size_t>(sent);
    while (first < pieces.size() && left >= pieces[first].iov_len)
      left -= pieces[first++].iov_len;
    if (first < pieces.size()) {
      pieces[first].iov_base = static_cast<char*>(pieces[first].iov_base) + left;
      pieces[first].iov_len -= left;
    }
  }
}

void Socket::shutdown() noexcept {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

Listener::Listener(const std::string& address, uint16_t port) {
  const AddressList found = resolve(address, port, true);
  const addrinfo& first = *found;
  fd_ = socket(first.ai_family, first.ai_socktype | SOCK_CLOEXEC, first.ai_protocol);
  if (fd_ < 0) fail_io(address, "cannot create a socket", errno);
  const int on = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  if (bind(fd_, first.ai_addr, first.ai_addrlen) != 0 || listen(fd_, 128) != 0) {
    const int error = errno;
    close(fd_);
    fail_io(address + ":" + std::to_string(port), "cannot listen", error);
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(bound).sin6_port
                                            : reinterpret_cast<sockaddr_in&>(bound).sin_port);
}

Listener::~Listener() {
  if (fd_ >= 0) close(fd_);
}

Socket Listener::accept() {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t length = sizeof(peer);
    const int fd = accept4(fd_, reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC);
    if (fd >= 0) {
      char host[NI_MAXHOST] = "?";
      char service[NI_MAXSERV] = "?";
      getnameinfo(reinterpret_cast<sockaddr*>(&peer), length, host, sizeof(host), service,
                  sizeof(service), NI_NUMERICHOST | NI_NUMERICSERV);
      set_no_delay(fd);
      return Socket(fd, std::string(host) + ":" + service);
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      // Out of descriptors or memory for now: connections that end give them back. Waiting
      // rather than stopping, so that a client holding many connections for a while does not
      // end the accepting for good.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    return {};  // shut down (EINVAL)
  }
}

void Listener::shutdown() noexcept {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

}  // namespace ember::wire
