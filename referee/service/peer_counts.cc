#include "referee/service/peer_counts.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace pyramid {

PeerSlot& PeerSlot::operator=(PeerSlot&& other) noexcept {
  if (this != &other) {
    Release();
    counts_ = std::exchange(other.counts_, nullptr);
    address_ = std::move(other.address_);
  }
  return *this;
}

void PeerSlot::Release() {
  if (counts_ == nullptr) return;
  std::exchange(counts_, nullptr)->Remove(address_);
}

namespace {

// The host of an "ipv6:" peer name's rest ("[::1]:5678" or, as gRPC 1.51
// writes it, "%5B::1%5D:5678"), without its zone ("%25eth0" or "%eth0");
// nullopt when it has no brackets.
std::optional<std::string> BracketedHost(absl::string_view rest) {
  size_t start = 0;
  if (absl::StartsWith(rest, "[")) {
    start = 1;
  } else if (absl::StartsWithIgnoreCase(rest, "%5B")) {
    start = 3;
  } else {
    return std::nullopt;
  }
  size_t end = rest.find(']', start);
  if (end == absl::string_view::npos) {
    // "%5D" (percent-escapes may be either case).
    for (size_t i = start; i + 3 <= rest.size(); ++i) {
      if (absl::StartsWithIgnoreCase(rest.substr(i), "%5D")) {
        end = i;
        break;
      }
    }
    if (end == absl::string_view::npos) return std::nullopt;
  }
  absl::string_view host = rest.substr(start, end - start);
  // A zone (a link-local address's interface), raw or percent-encoded.
  if (const size_t zone = host.find('%'); zone != absl::string_view::npos) {
    host = host.substr(0, zone);
  }
  return std::string(host);
}

}  // namespace

std::string PeerCounts::AddressOf(absl::string_view peer) {
  if (absl::StartsWith(peer, "ipv6:")) {
    std::optional<std::string> host = BracketedHost(peer.substr(5));
    in6_addr address;
    if (host.has_value() && inet_pton(AF_INET6, host->c_str(), &address) == 1) {
      char text[INET6_ADDRSTRLEN];
      if (IN6_IS_ADDR_V4MAPPED(&address)) {
        // ::ffff:a.b.c.d is the IPv4 address a.b.c.d.
        in_addr v4;
        std::memcpy(&v4, &address.s6_addr[12], sizeof(v4));
        if (inet_ntop(AF_INET, &v4, text, sizeof(text)) != nullptr) {
          return absl::StrCat("ipv4:", text);
        }
      } else {
        // One host may hold a whole /64 (2^64 addresses): its prefix is
        // the address.
        std::memset(&address.s6_addr[8], 0, 8);
        if (inet_ntop(AF_INET6, &address, text, sizeof(text)) != nullptr) {
          return absl::StrCat("ipv6:[", text, "]/64");
        }
      }
    }
  } else if (absl::StartsWith(peer, "ipv4:")) {
    const size_t colon = peer.rfind(':');
    if (colon > 4) return std::string(peer.substr(0, colon));
  }
  return std::string(peer);
}

bool PeerCounts::TryAdd(absl::string_view peer, size_t limit, PeerSlot* slot) {
  std::string address = AddressOf(peer);
  {
    absl::MutexLock lock(&mu_);
    if (limit == 0) return false;
    size_t& count = counts_[address];
    if (count >= limit) return false;  // Never 0 here: limit is not.
    ++count;
  }
  *slot = PeerSlot(this, std::move(address));
  return true;
}

size_t PeerCounts::CountOf(absl::string_view peer) const {
  absl::MutexLock lock(&mu_);
  auto it = counts_.find(AddressOf(peer));
  return it == counts_.end() ? 0 : it->second;
}

void PeerCounts::Remove(const std::string& address) {
  absl::MutexLock lock(&mu_);
  auto it = counts_.find(address);
  if (it != counts_.end() && --it->second == 0) counts_.erase(it);
}

}  // namespace pyramid
