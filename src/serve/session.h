// One client connection of the server: the handshake, then one session on one device, until the
// client leaves, breaks the protocol or the server stops (docs/backends/remote.md).
#pragma once

#include <functional>
#include <string_view>

#include "serve/serve_state.h"
#include "wire/socket.h"

namespace ember::serve {

/// Serves the client on socket until the connection ends (socket.shutdown() ends it from another
/// thread); frees everything its session held. Never throws: every failure is logged, answered
/// where the client can still read it, and ends only this connection. greeted, when set, is
/// called once the client's hello is accepted.
void serve_connection(wire::Socket& socket, Shared& shared,
                      const std::function<void()>& greeted = {}) noexcept;

/// The session part of serve_connection, on any stream (a socket, TLS over one, or bytes in
/// memory, as tests/fuzz/remote_session_fuzz.cpp feeds it): handshake, requests, replies, until
/// the stream ends or the client breaks the protocol (greeted as for serve_connection). Never
/// throws.
void serve_stream(wire::Stream& stream, Shared& shared,
                  const std::function<void()>& greeted = {}) noexcept;

/// Begins the log line of a connection ended by an exception that is not an ember::Error: a
/// defect of the server (std::bad_alloc, std::out_of_range, ...), which the fuzz target looks for.
inline constexpr std::string_view kClosedAfterAnError = "closed after an error: ";

}  // namespace ember::serve
