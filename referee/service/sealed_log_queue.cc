#include "referee/service/sealed_log_queue.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/sha256.h"

namespace pyramid {

SealedLogQueue::SealedLogQueue(TransparencyLog* tlog,
                               uint32_t checkpoint_every_matches,
                               MessageSink messages)
    : tlog_(tlog),
      checkpoint_every_matches_(checkpoint_every_matches),
      messages_(std::move(messages)) {}

absl::Status SealedLogQueue::EnterOne(const std::string& match_id,
                                      const std::string& log_path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(log_path);
  if (!bytes.ok()) return bytes.status();
  if (absl::StatusOr<TlogLeaf> leaf = tlog_->Append(match_id, Sha256(*bytes));
      !leaf.ok()) {
    return leaf.status();
  }
  if (checkpoint_every_matches_ != 0 &&
      tlog_->unsigned_leaves() >= checkpoint_every_matches_) {
    return tlog_->CheckpointIfGrown().status();
  }
  return absl::OkStatus();
}

bool SealedLogQueue::Enter(const std::string& match_id,
                           const std::string& log_path) {
  absl::MutexLock lock(&mu_);
  waiting_.emplace_back(match_id, log_path);
  EnterWaitingLocked();
  return waiting_.empty() || waiting_.back().first != match_id;
}

void SealedLogQueue::EnterWaiting() {
  absl::MutexLock lock(&mu_);
  EnterWaitingLocked();
}

size_t SealedLogQueue::waiting() const {
  absl::MutexLock lock(&mu_);
  return waiting_.size();
}

void SealedLogQueue::EnterWaitingLocked() {
  while (!waiting_.empty()) {
    const auto& [match_id, log_path] = waiting_.front();
    const absl::Status s = EnterOne(match_id, log_path);
    if (!s.ok() && !absl::IsFailedPrecondition(s)) {
      Say(messages_,
          absl::StrCat("match ", match_id,
                       ": not entered in the transparency log yet (tried "
                       "again at the next match end or checkpoint): ",
                       s.message()));
      return;
    }
    // FAILED_PRECONDITION: the tree holds the match under another hash, or
    // the hash under another match; no later try can change that.
    if (!s.ok()) {
      Say(messages_, absl::StrCat("match ", match_id,
                                  ": never entered in the transparency log: ",
                                  s.message()));
    }
    waiting_.pop_front();
  }
}

}  // namespace pyramid
