// The sealed match logs a Lobby enters in its transparency log
// (docs/transparency-log.md), in the order their matches ended: a log that
// cannot be entered now (its file unread for want of a file descriptor,
// the transparency log's disk full, its database locked by a reader)
// waits, and so do the logs after it, for the next try. A log whose file
// cannot be read for another reason is dropped and said, so that it holds
// back no other for good; the next start enters it if it can.
// Thread-safe.
#ifndef PYRAMID_REFEREE_SERVICE_SEALED_LOG_QUEUE_H_
#define PYRAMID_REFEREE_SERVICE_SEALED_LOG_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "referee/service/messages.h"
#include "referee/service/transparency_log.h"

namespace pyramid {

class SealedLogQueue {
 public:
  // Enters logs in `tlog` (which must outlive the queue), signing a
  // checkpoint once `checkpoint_every_matches` leaves are not covered by
  // one (0: never on that account); says in `messages` why a log waits, or
  // why it is never entered.
  SealedLogQueue(TransparencyLog* tlog, uint32_t checkpoint_every_matches,
                 MessageSink messages);

  // What became of a log given to Enter.
  enum class Entry {
    kEntered,  // In the tree now (and a checkpoint signed if one was due).
    kWaiting,  // Not yet: it waits for the next Enter or EnterWaiting.
    kRefused,  // Never: the tree holds the match under another hash, or
               // the hash under another match. Dropped.
    kUnread,   // Not by this process: its file cannot be read, and not
               // for want of a descriptor or memory (gone, not ours,
               // unreadable). Dropped; the next start tries it again.
  };

  // Enters the sealed log of `match_id` (the file `log_path`) after those
  // still waiting, and says what became of it. One that cannot be entered
  // now waits, and the logs after it with it: whatever kept it out (its
  // file unread for want of a file descriptor or memory; the transparency
  // log failing; the checkpoint due not signed) may be gone at the next
  // try. One the tree refuses, or whose file cannot be read otherwise, is
  // dropped.
  Entry Enter(const std::string& match_id, const std::string& log_path);
  // Enters the logs still waiting, in order, up to the first that must
  // wait again.
  void EnterWaiting();
  // How many logs wait.
  size_t waiting() const;

 private:
  // Tries to enter one log; `why` says why it is not entered.
  Entry EnterOne(const std::string& match_id, const std::string& log_path,
                 absl::Status& why);
  // What became of the last log it tried (kEntered when none waited).
  Entry EnterWaitingLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  TransparencyLog* const tlog_;
  const uint32_t checkpoint_every_matches_;
  const MessageSink messages_;
  mutable absl::Mutex mu_;
  // (match id, log path) of the logs waiting, in the order the matches
  // ended.
  std::deque<std::pair<std::string, std::string>> waiting_ ABSL_GUARDED_BY(mu_);
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_SEALED_LOG_QUEUE_H_
