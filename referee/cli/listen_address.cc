#include "referee/cli/listen_address.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

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

constexpr absl::string_view kUnix = "unix:";
constexpr absl::string_view kUnixAbstract = "unix-abstract:";

absl::Status Unavailable(const std::string& address, absl::string_view why) {
  return absl::UnavailableError(
      absl::StrCat("cannot listen on ", address, ": ", why));
}

// A Unix socket's address for `name`: a path, or with `abstract` a name in
// Linux's abstract namespace (a leading zero byte). False when the name is
// empty or too long for sun_path.
bool UnixSocketAddress(absl::string_view name, bool abstract,
                       sockaddr_un& address, socklen_t& size) {
  address = sockaddr_un{};
  address.sun_family = AF_UNIX;
  const size_t offset = abstract ? 1 : 0;
  // A path needs its terminating zero byte; an abstract name does not.
  const size_t room = sizeof(address.sun_path) - offset - (abstract ? 0 : 1);
  if (name.empty() || name.size() > room) return false;
  std::memcpy(address.sun_path + offset, name.data(), name.size());
  size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + offset +
                                name.size() + (abstract ? 0 : 1));
  return true;
}

// 0 when `op` (bind or connect) on a new Unix stream socket to `address`
// succeeds, else its errno. The socket is closed before this returns.
template <typename Op>
int TryUnix(const sockaddr_un& address, socklen_t size, Op op) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  const int error =
      op(fd, reinterpret_cast<const sockaddr*>(&address), size) == 0 ? 0
                                                                     : errno;
  close(fd);
  return error;
}

// CheckListenAddress for unix:PATH (unix://PATH where PATH is absolute) and
// unix-abstract:NAME. gRPC unlinks a socket file in its way before it
// binds, so that a path another server still listens on would be taken
// from it unnoticed: such a path is refused here. A socket file nobody
// listens on (a server that was killed leaves it) is left to gRPC to
// replace; a file of another kind, or a directory that does not exist or
// cannot be written, is refused with the system's reason.
absl::Status CheckUnixAddress(const std::string& address) {
  const bool abstract = absl::StartsWith(address, kUnixAbstract);
  absl::string_view name = absl::string_view(address).substr(
      abstract ? kUnixAbstract.size() : kUnix.size());
  if (!abstract && absl::StartsWith(name, "//")) name.remove_prefix(2);
  sockaddr_un socket_address;
  socklen_t size = 0;
  if (!UnixSocketAddress(name, abstract, socket_address, size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--listen ", abstract ? "unix-abstract:NAME" : "unix:PATH",
        " needs a name of 1 to ", sizeof(socket_address.sun_path) - 1,
        " bytes, not \"", address, "\""));
  }
  if (abstract) {
    // Bound names vanish with their socket: a bind tells.
    if (const int error = TryUnix(socket_address, size, bind); error != 0) {
      return Unavailable(address, std::strerror(error));
    }
    return absl::OkStatus();
  }
  const std::string path(name);
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) {
    if (errno != ENOENT) return Unavailable(address, std::strerror(errno));
    // Nothing there: a bind tells whether the directory takes the socket;
    // the file it makes goes again at once.
    if (const int error = TryUnix(socket_address, size, bind); error != 0) {
      return Unavailable(address, std::strerror(error));
    }
    unlink(path.c_str());
    return absl::OkStatus();
  }
  if (!S_ISSOCK(info.st_mode)) {
    return Unavailable(address, "the path exists and is not a socket");
  }
  const int error = TryUnix(socket_address, size, connect);
  if (error == 0) {
    return Unavailable(address, "another server listens on this socket");
  }
  if (error != ECONNREFUSED) return Unavailable(address, std::strerror(error));
  return absl::OkStatus();  // Left by a server gone: gRPC replaces it.
}

}  // namespace

bool ListensOnPort(const std::string& address) {
  return !absl::StartsWith(address, kUnix) &&
         !absl::StartsWith(address, kUnixAbstract);
}

absl::Status CheckListenAddress(const std::string& address) {
  if (!ListensOnPort(address)) return CheckUnixAddress(address);
  for (const char* scheme : {"vsock:", "ipv4:", "ipv6:", "dns:"}) {
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
  return Unavailable(address, std::strerror(first_error));
}

}  // namespace pyramid
