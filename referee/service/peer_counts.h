// Counts the calls in progress of each peer IP address, so that one client
// cannot take every place of a kind (Watch streams, unary calls) for itself,
// even for the little while a stalled call lasts (WriteStall). gRPC names a
// call's peer "ipv4:1.2.3.4:5678" or "ipv6:%5B2001:db8::1%5D:5678" (gRPC
// 1.51 percent-encodes the brackets; "ipv6:[2001:db8::1]:5678" is taken
// too): the port is stripped, so that every connection of one address
// counts together, and an IPv6 address counts as its /64 (one host may
// hold a whole /64, 2^64 addresses). Only
// callers without the admin token are counted (the service decides):
// anonymous spectators and seat or bot tokens, never the tournament
// runner's admin token. Thread-safe.
#ifndef PYRAMID_REFEREE_SERVICE_PEER_COUNTS_H_
#define PYRAMID_REFEREE_SERVICE_PEER_COUNTS_H_

#include <cstddef>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace pyramid {

class PeerCounts;

// One call counted against its peer's address, until destroyed (or moved
// from); empty: counts nothing.
class PeerSlot {
 public:
  PeerSlot() = default;
  PeerSlot(PeerSlot&& other) noexcept { *this = std::move(other); }
  PeerSlot& operator=(PeerSlot&& other) noexcept;
  ~PeerSlot() { Release(); }

 private:
  friend class PeerCounts;
  PeerSlot(PeerCounts* counts, std::string address)
      : counts_(counts), address_(std::move(address)) {}
  void Release();

  PeerCounts* counts_ = nullptr;  // Null: empty.
  std::string address_;
};

class PeerCounts {
 public:
  PeerCounts() = default;
  PeerCounts(const PeerCounts&) = delete;
  PeerCounts& operator=(const PeerCounts&) = delete;

  // What a gRPC peer name counts as: "ipv4:1.2.3.4:5678" -> "ipv4:1.2.3.4";
  // "ipv6:%5B2001:db8::1:2%5D:5678" (or with "[" "]", any zone dropped) ->
  // its /64, "ipv6:[2001:db8::]/64"; an IPv4-mapped IPv6 address
  // ("ipv6:%5B::ffff:1.2.3.4%5D:5678") -> that IPv4 address,
  // "ipv4:1.2.3.4"; any other name (a Unix socket's, an IPv6 one that does
  // not parse) whole.
  static std::string AddressOf(absl::string_view peer);

  // Counts one more call of `peer`'s address into `slot` unless the address
  // already has `limit`: whether it did.
  bool TryAdd(absl::string_view peer, size_t limit, PeerSlot* slot);

  // Calls counted for `peer`'s address now.
  size_t CountOf(absl::string_view peer) const;

 private:
  friend class PeerSlot;
  void Remove(const std::string& address);

  mutable absl::Mutex mu_;
  // Addresses with at least one call (none is kept at 0).
  absl::flat_hash_map<std::string, size_t> counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_PEER_COUNTS_H_
