// One client connection of the server: the handshake, then one session on one device, until the
// client leaves, breaks the protocol or the server stops (docs/backends/remote.md).
#pragma once

#include "serve/serve_state.h"
#include "wire/socket.h"

namespace ember::serve {

/// Serves the client on socket until the connection ends (socket.shutdown() ends it from another
/// thread); frees everything its session held. Never throws: every failure is logged, answered
/// where the client can still read it, and ends only this connection.
void serve_connection(wire::Socket& socket, Shared& shared) noexcept;

}  // namespace ember::serve
