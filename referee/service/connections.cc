#include "referee/service/connections.h"

#include <vector>

namespace pyramid {

namespace {
constexpr int kAborted = 10;  // google.rpc.Code ABORTED.
}  // namespace

void Connections::Attach(uint64_t route, std::shared_ptr<PlaySink> sink) {
  std::shared_ptr<PlaySink> previous;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<PlaySink>& slot = sinks_[route];
    previous = std::move(slot);
    slot = std::move(sink);
    version_.fetch_add(1, std::memory_order_release);
  }
  if (previous) previous->Close(kAborted, "replaced by a newer stream");
}

void Connections::Detach(uint64_t route, const PlaySink* sink) {
  absl::MutexLock lock(&mu_);
  auto it = sinks_.find(route);
  if (it != sinks_.end() && it->second.get() == sink) {
    sinks_.erase(it);
    version_.fetch_add(1, std::memory_order_release);
  }
}

std::shared_ptr<PlaySink> Connections::Find(uint64_t route) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = sinks_.find(route);
  return it == sinks_.end() ? nullptr : it->second;
}

void Connections::CloseAll(int code, const std::string& message) {
  absl::flat_hash_map<uint64_t, std::shared_ptr<PlaySink>> sinks;
  {
    absl::MutexLock lock(&mu_);
    sinks.swap(sinks_);
    version_.fetch_add(1, std::memory_order_release);
  }
  for (auto& [key, sink] : sinks) sink->Close(code, message);
}

}  // namespace pyramid
