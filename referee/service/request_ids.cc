#include "referee/service/request_ids.h"

namespace pyramid {
namespace {

absl::Status BeingAnswered() {
  return absl::UnavailableError(
      "a CreateMatch with this request_id is still being answered; try "
      "again");
}

}  // namespace

absl::StatusOr<std::string> RequestIds::Reserve(const std::string& request_id) {
  absl::MutexLock lock(&mu_);
  auto [it, reserved] = ids_.try_emplace(request_id, "");
  if (!reserved && it->second.empty()) return BeingAnswered();
  return it->second;
}

absl::Status RequestIds::TakeOver(const std::string& request_id,
                                  const std::string& match_id) {
  absl::MutexLock lock(&mu_);
  auto [it, free] = ids_.try_emplace(request_id, "");
  if (!free && it->second != match_id) return BeingAnswered();
  it->second.clear();
  return absl::OkStatus();
}

void RequestIds::Release(const std::string& request_id) {
  if (request_id.empty()) return;
  absl::MutexLock lock(&mu_);
  auto it = ids_.find(request_id);
  if (it != ids_.end() && it->second.empty()) ids_.erase(it);
}

void RequestIds::Name(const std::string& request_id,
                      const std::string& match_id) {
  if (request_id.empty()) return;
  absl::MutexLock lock(&mu_);
  ids_[request_id] = match_id;
}

void RequestIds::Forget(const std::string& request_id,
                        const std::string& match_id) {
  absl::MutexLock lock(&mu_);
  auto it = ids_.find(request_id);
  if (it != ids_.end() && it->second == match_id) ids_.erase(it);
}

size_t RequestIds::size() const {
  absl::MutexLock lock(&mu_);
  return ids_.size();
}

}  // namespace pyramid
