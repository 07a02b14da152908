#include "referee/service/sealed_log_queue.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/sha256.h"
#include "referee/files/bounded_read.h"

namespace pyramid {

SealedLogQueue::SealedLogQueue(TransparencyLog* tlog,
                               uint32_t checkpoint_every_matches,
                               MessageSink messages)
    : tlog_(tlog),
      checkpoint_every_matches_(checkpoint_every_matches),
      messages_(std::move(messages)) {}

SealedLogQueue::Entry SealedLogQueue::EnterOne(const std::string& match_id,
                                               const std::string& log_path,
                                               absl::Status& why) {
  // A log unread for want of a descriptor or memory waits for them. One
  // unread for another reason (its file gone, not ours, unreadable) would
  // hold back every later log for good: it is dropped by this process, and
  // the next start, which enters every sealed log the tree lacks, tries it
  // again.
  absl::StatusOr<std::string> bytes = ReadFileToString(log_path);
  if (!bytes.ok()) {
    why = bytes.status();
    return IsShortage(why) ? Entry::kWaiting : Entry::kUnread;
  }
  if (absl::StatusOr<TlogLeaf> leaf = tlog_->Append(match_id, Sha256(*bytes));
      !leaf.ok()) {
    why = leaf.status();
    // FAILED_PRECONDITION: the tree holds the match under another hash, or
    // the hash under another match; no later try can change that.
    return absl::IsFailedPrecondition(why) ? Entry::kRefused : Entry::kWaiting;
  }
  if (checkpoint_every_matches_ != 0 &&
      tlog_->unsigned_leaves() >= checkpoint_every_matches_) {
    // Waits for a checkpoint, whatever its failure: entering it again
    // appends nothing (Append is idempotent) and tries the checkpoint.
    why = tlog_->CheckpointIfGrown().status();
    if (!why.ok()) return Entry::kWaiting;
  }
  return Entry::kEntered;
}

SealedLogQueue::Entry SealedLogQueue::Enter(const std::string& match_id,
                                            const std::string& log_path) {
  absl::MutexLock lock(&mu_);
  waiting_.emplace_back(match_id, log_path);
  // Tried last: when the last log tried did not wait, it was this one.
  return EnterWaitingLocked();
}

void SealedLogQueue::EnterWaiting() {
  absl::MutexLock lock(&mu_);
  EnterWaitingLocked();
}

size_t SealedLogQueue::waiting() const {
  absl::MutexLock lock(&mu_);
  return waiting_.size();
}

SealedLogQueue::Entry SealedLogQueue::EnterWaitingLocked() {
  Entry last = Entry::kEntered;
  while (!waiting_.empty()) {
    const auto& [match_id, log_path] = waiting_.front();
    absl::Status why;
    last = EnterOne(match_id, log_path, why);
    if (last == Entry::kWaiting) {
      Say(messages_,
          absl::StrCat("match ", match_id,
                       ": not entered in the transparency log yet (tried "
                       "again at the next match end or checkpoint): ",
                       why.message()));
      return last;
    }
    if (last == Entry::kRefused) {
      Say(messages_, absl::StrCat("match ", match_id,
                                  ": never entered in the transparency log: ",
                                  why.message()));
    }
    if (last == Entry::kUnread) {
      Say(messages_,
          absl::StrCat("match ", match_id,
                       ": not entered in the transparency log, its log "
                       "unread (the next start tries again): ",
                       why.message()));
    }
    waiting_.pop_front();
  }
  return last;
}

}  // namespace pyramid
