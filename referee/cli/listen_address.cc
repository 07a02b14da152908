#include "referee/cli/listen_address.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace pyramid {
namespace {

// 0 when `address` can be bound now, else the errno of the socket or bind
// that failed. The socket is closed before this returns.
int TryBind(const addrinfo& address) {
  const int fd = socket(address.ai_family, address.ai_socktype | SOCK_CLOEXEC,
                        address.ai_protocol);
  if (fd < 0) return errno;
  // As gRPC's listening sockets: an address whose connections linger in
  // TIME_WAIT can be bound again, one another socket listens on cannot;
  // an IPv6 one takes IPv4 too (so that [::] is refused where 0.0.0.0 is
  // taken).
  const int yes = 1;
  const int no = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  if (address.ai_family == AF_INET6) {
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof(no));
  }
  const int error =
      bind(fd, address.ai_addr, address.ai_addrlen) == 0 ? 0 : errno;
  close(fd);
  return error;
}

}  // namespace

absl::Status CheckListenAddress(const std::string& address) {
  for (const char* scheme :
       {"unix:", "unix-abstract:", "vsock:", "ipv4:", "ipv6:", "dns:"}) {
    if (absl::StartsWith(address, scheme)) return absl::OkStatus();
  }
  const size_t colon = address.rfind(':');
  std::string host =
      colon == std::string::npos ? address : address.substr(0, colon);
  const std::string port =
      colon == std::string::npos ? "" : address.substr(colon + 1);
  int port_number = 0;
  if (!absl::SimpleAtoi(port, &port_number) || port_number < 0 ||
      port_number > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen is HOST:PORT (PORT 0 to 65535; 0 picks a free "
                     "one), not \"",
                     address, "\""));
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int error = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                                    port.c_str(), &hints, &found);
      error != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot listen on ", address, ": ", gai_strerror(error)));
  }
  int first_error = 0;
  bool bound = false;
  for (const addrinfo* a = found; a != nullptr && !bound; a = a->ai_next) {
    const int error = TryBind(*a);
    bound = error == 0;
    if (first_error == 0) first_error = error;
  }
  freeaddrinfo(found);
  if (bound) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat("cannot listen on ", address, ": ",
                                             std::strerror(first_error)));
}

}  // namespace pyramid
