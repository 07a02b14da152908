#include "referee/service/peer_counts.h"

#include <utility>

#include "absl/strings/match.h"

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

std::string PeerCounts::AddressOf(absl::string_view peer) {
  if (absl::StartsWith(peer, "ipv6:[")) {
    const size_t close = peer.find(']');
    if (close != absl::string_view::npos) {
      return std::string(peer.substr(0, close + 1));
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
