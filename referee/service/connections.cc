#include "referee/service/connections.h"

#include <vector>

namespace pyramid {

namespace {
constexpr int kAborted = 10;  // google.rpc.Code ABORTED.
}  // namespace

void Connections::Attach(const std::string& key,
                         std::shared_ptr<PlaySink> sink) {
  std::shared_ptr<PlaySink> previous;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<PlaySink>& slot = sinks_[key];
    previous = std::move(slot);
    slot = std::move(sink);
  }
  if (previous) previous->Close(kAborted, "replaced by a newer stream");
}

void Connections::Detach(const std::string& key, const PlaySink* sink) {
  absl::MutexLock lock(&mu_);
  auto it = sinks_.find(key);
  if (it != sinks_.end() && it->second.get() == sink) sinks_.erase(it);
}

std::shared_ptr<PlaySink> Connections::Find(const std::string& key) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = sinks_.find(key);
  return it == sinks_.end() ? nullptr : it->second;
}

void Connections::CloseAll(int code, const std::string& message) {
  absl::flat_hash_map<std::string, std::shared_ptr<PlaySink>> sinks;
  {
    absl::MutexLock lock(&mu_);
    sinks.swap(sinks_);
  }
  for (auto& [key, sink] : sinks) sink->Close(code, message);
}

}  // namespace pyramid
