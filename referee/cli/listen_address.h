// Whether a server can listen on an address, told before it touches the
// disk: a server that cannot start should leave nothing behind it (the
// referee's DATA_DIR, its key and admin token), and say why in one line
// rather than through gRPC's log.
//
// The check binds a socket of its own to the address, as gRPC's server
// does (SO_REUSEADDR, no SO_REUSEPORT, IPv6 sockets dual-stack), and closes
// it at once. The server's own bind stays the judge: another process may
// take the address between the two.
#ifndef PYRAMID_REFEREE_CLI_LISTEN_ADDRESS_H_
#define PYRAMID_REFEREE_CLI_LISTEN_ADDRESS_H_

#include <string>

#include "absl/status/status.h"

namespace pyramid {

// OK when `address` (HOST:PORT; PORT 0 to 65535, 0 picking a free one;
// HOST a name, an IPv4 address or a bracketed IPv6 one, empty for every
// address) resolves and one of its addresses can be bound now, as gRPC
// listens when one of them can. Otherwise INVALID_ARGUMENT for an address
// of the wrong form or a host that does not resolve, UNAVAILABLE for one
// that cannot be bound, each message "cannot listen on ADDRESS: WHY" (WHY
// the system's, e.g. "Address already in use") or naming the form wanted.
// A Unix socket address (unix:PATH, unix://ABSOLUTE_PATH,
// unix-abstract:NAME) is refused UNAVAILABLE when another server listens
// on it (gRPC would unlink its socket file and take the path from it
// unnoticed), when PATH is a file of another kind, or when its directory
// cannot take a socket; INVALID_ARGUMENT when the name is empty or longer
// than a socket address holds (107 bytes). A socket file left by a server
// that is gone passes: gRPC replaces it. An address with another scheme
// gRPC knows (ipv4:, ipv6:, dns:, vsock:) is left to gRPC: OK.
absl::Status CheckListenAddress(const std::string& address);

// False for a Unix socket address (unix:, unix-abstract:), which has no
// port: gRPC reports 1 for it, which is none.
bool ListensOnPort(const std::string& address);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_LISTEN_ADDRESS_H_
