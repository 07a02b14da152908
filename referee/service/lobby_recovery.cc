// Lobby::Recover: what a restart brings back from the registry and the
// match logs (docs/durability.md). Ended matches are left to the registry
// (their logs entered in the transparency log if a crash lost their
// entry); running ones are rebuilt by re-running their logs and hosted
// again, or ended broken when they cannot be.
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "referee/core/log_files.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/protocol.h"
#include "referee/files/bounded_read.h"
#include "referee/service/lobby.h"
#include "referee/service/public_reason.h"

namespace pyramid {
namespace {

// Matches Recover reads from the registry at once.
constexpr int kRecoveryPage = 1000;

}  // namespace

absl::StatusOr<RecoveryReport> Lobby::Recover() {
  RecoveryReport report;
  absl::StatusOr<std::vector<StoredBot>> bots = options_.registry->LoadBots();
  if (!bots.ok()) return bots.status();
  for (StoredBot& bot : *bots) {
    absl::MutexLock lock(&mu_);
    bot.token.principal.route = next_route_++;
    bots_[bot.bot_id] =
        Bot{bot.name, bot.public_key, bot.token.principal.route, {}};
    tokens_.Add(MintedToken{"", bot.token.id, bot.token.secret_hash},
                bot.token.principal);
    ++report.bots;
  }
  // A page at a time: nothing is kept of an ended match.
  for (int64_t after = 0;;) {
    absl::StatusOr<std::vector<StoredMatch>> page =
        options_.registry->LoadMatches(after, kRecoveryPage);
    if (!page.ok()) return page.status();
    if (page->empty()) break;
    after = page->back().seq;
    for (StoredMatch& stored : *page) {
      if (absl::Status s = RecoverMatch(stored, report); !s.ok()) return s;
    }
  }
  return report;
}

// A match that ended before the restart: its log is entered in the
// transparency log if it is not yet; the registry answers for it.
void Lobby::RecoverEnded(const StoredMatch& stored, RecoveryReport& report) {
  const v1::MatchInfo& info = stored.info;
  const absl::StatusOr<std::string> named = LogPath(stored);
  ++report.finished;
  if (!named.ok()) {
    // Nothing to make public or enter; the registry answers for the match.
    Say(absl::StrCat("match ", info.match_id(), ": ", named.status().message(),
                     "; its log is not served"));
    return;
  }
  const std::string& log_path = *named;
  // Public already (a broken one marked broken, 0444), unless its chmod
  // failed or the journal made the file again (0600) on this start.
  SayIfFailed(info.status() == v1::MATCH_BROKEN ? MarkLogBroken(log_path)
                                                : MakeLogPublic(log_path));
  // A log sealed before the transparency log existed (or whose entry a
  // crash lost) is entered now, and counted so; one that must wait (its
  // file unread, the tree failing) is tried again while the referee runs,
  // and one the tree refuses is said and dropped.
  if (info.status() == v1::MATCH_FINISHED && options_.tlog != nullptr &&
      !options_.tlog->Contains(info.match_id()) &&
      sealed_logs_->Enter(info.match_id(), log_path) ==
          SealedLogQueue::Entry::kEntered) {
    ++report.entered;
  }
}

absl::Status Lobby::RecoverMatch(StoredMatch& stored, RecoveryReport& report) {
  const v1::MatchInfo& info = stored.info;
  if (info.status() != v1::MATCH_RUNNING) {
    RecoverEnded(stored, report);
    return absl::OkStatus();
  }
  const absl::StatusOr<std::string> named = LogPath(stored);
  const std::string log_path = named.value_or("");
  std::vector<HostedSeat> hosted;
  {
    absl::MutexLock lock(&mu_);
    for (const v1::MatchSeatInfo& seat : info.seats()) {
      auto bot = bots_.find(seat.bot_id());
      hosted.push_back(
          {seat.name(), seat.bot_id(),
           bot != bots_.end() ? bot->second.route : next_route_++});
    }
  }
  // Its seats' tokens, taken once the match is known to have been created.
  const auto add_tokens = [&] {
    std::vector<std::string> token_ids;
    for (StoredToken& token : stored.seat_tokens) {
      if (token.principal.seat < 0 ||
          token.principal.seat >= static_cast<int>(hosted.size())) {
        continue;
      }
      token.principal.route = hosted[token.principal.seat].route;
      tokens_.Add(MintedToken{"", token.id, token.secret_hash},
                  token.principal);
      token_ids.push_back(token.id);
    }
    return token_ids;
  };
  // A registry entry naming no log file: there is no log to resume it
  // from, and none is opened, removed or marked in its name.
  if (!named.ok()) {
    EndUnresumed(info,
                 absl::StrCat("cannot resume after a restart: ",
                              named.status().message()),
                 "", hosted, add_tokens(), report);
    return absl::OkStatus();
  }
  // Its log marked broken (0444): it broke before the referee stopped, and
  // the registry could not record its end before the referee died (a
  // SIGKILL, a crash). Its seats were told it stopped: it is not resumed.
  if (LogIsMarkedBroken(log_path)) {
    EndUnresumed(info,
                 "broke before the referee stopped (its log could not be "
                 "written; the registry could not record its end then); "
                 "found so when the referee started again",
                 log_path, hosted, add_tokens(), report);
    return absl::OkStatus();
  }
  bool unacknowledged = false;
  absl::StatusOr<std::unique_ptr<Match>> match =
      ResumeLog(stored, log_path, unacknowledged);
  if (!match.ok() && IsShortage(match.status())) {
    // Out of file descriptors or memory for now, not for good: the start
    // fails with the match untouched, rather than end it broken.
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot resume match ", info.match_id(), ": ", match.status().message(),
        "; nothing of it was changed: raise the open-file limit (ulimit -n) "
        "or free memory, and start the referee again"));
  }
  if (unacknowledged) {
    ForgetUnacknowledged(stored, log_path,
                         std::string(match.status().message()), report);
    return absl::OkStatus();
  }
  std::vector<std::string> token_ids = add_tokens();
  if (!match.ok()) {
    EndUnresumed(info,
                 absl::StrCat("cannot resume after a restart: ",
                              match.status().message()),
                 log_path, hosted, std::move(token_ids), report);
    return absl::OkStatus();
  }
  // Its log holds its first checkpoint: answered, or answered to the retry
  // of its request. Marked so if the registry does not say it yet (a match
  // an older referee recorded, or a kill before the mark), so that a log
  // lost later ends it broken rather than have it forgotten; a mark that
  // fails (a full disk) is said, and the start goes on.
  if (stored.acknowledged != StoredMatch::Acknowledged::kYes) {
    if (absl::Status s = options_.registry->MarkAcknowledged(info.match_id());
        !s.ok()) {
      Say(absl::StrCat("match ", info.match_id(),
                       ": cannot record it as acknowledged (", s.message(),
                       "); tried again at the next start"));
    }
  }
  std::shared_ptr<MatchHost> host =
      NewHost(*std::move(match), info, std::move(hosted), log_path);
  if (host->finished())
    ++report.finished;
  else
    ++report.resumed;
  live_matches_.fetch_add(1);  // Whatever the limit: it was live before.
  Host(std::move(host), std::move(token_ids));
  return absl::OkStatus();
}

void Lobby::EndUnresumed(const v1::MatchInfo& info, const std::string& reason,
                         const std::string& log_path,
                         const std::vector<HostedSeat>& hosted,
                         std::vector<std::string> token_ids,
                         RecoveryReport& report) {
  v1::MatchInfo broken = info;
  broken.set_status(v1::MATCH_BROKEN);
  // Anyone may read the reason: the files it names by their names only
  // (the referee's own line names them in full).
  broken.set_broken_reason(PublicBrokenReason(reason, log_path));
  Say(absl::StrCat("match ", info.match_id(), ": ", reason));
  if (!log_path.empty()) SayIfFailed(MarkLogBroken(log_path));
  const absl::Status recorded = options_.registry->EndMatch(broken);
  if (recorded.ok()) {
    tokens_.Remove(token_ids);
  } else {
    SayEndNotRecorded(info.match_id(), recorded);
    // Its request_id names it until its end is recorded (ReserveRequest).
    requests_.Name(info.request_id(), info.match_id());
  }
  Archive(broken, log_path, RoutesOf(hosted), recorded.ok(),
          std::move(token_ids));
  ++report.broken;
}

void Lobby::ForgetUnacknowledged(const StoredMatch& stored,
                                 const std::string& log_path,
                                 const std::string& why,
                                 RecoveryReport& report) {
  const std::string& match_id = stored.info.match_id();
  const std::string said = absl::StrCat(
      "match ", match_id, ": its creation was cut short (", why,
      ": the referee stopped before its log held its first checkpoint, "
      "before the match was acknowledged)");
  // The log first, its removal made durable, then the registry's entry: a
  // crash in between leaves an entry without a log, which the next start
  // forgets the same way, never a log file that no entry names.
  std::error_code error;
  std::filesystem::remove(log_path, error);
  absl::Status removed =
      error ? absl::InternalError(absl::StrCat("cannot remove ", log_path, ": ",
                                               error.message()))
            : SyncDirectory(DirectoryOf(log_path));
  if (removed.ok()) removed = options_.registry->RemoveMatch(match_id);
  ++report.forgotten;
  if (!removed.ok()) {
    // Unknown to this run all the same (not hosted: FindMatch does not
    // find it, and a retry of its request_id creates the match).
    Say(absl::StrCat(said, "; not forgotten yet (", removed.message(),
                     "): tried again at the next start"));
    return;
  }
  Say(absl::StrCat(said,
                   "; forgotten, as if never created: a retry of its "
                   "CreateMatch creates it"));
}

absl::StatusOr<std::unique_ptr<Match>> Lobby::ResumeLog(
    const StoredMatch& stored, const std::string& log_path,
    bool& unacknowledged) {
  absl::StatusOr<std::string> bytes = ReadFileToString(log_path);
  if (!bytes.ok() && IsShortage(bytes.status())) {
    return bytes.status();  // The log is there; the process lacks the means.
  }
  // CreateMatch records the match, then creates its log, writes its header
  // and a signed checkpoint and syncs them (the log's name in its directory
  // too), then records the match acknowledged, and only then answers. A
  // match the registry does not hold acknowledged whose log is missing or
  // holds less than that checkpoint was cut short by the referee's end:
  // forgotten. One it holds acknowledged lost its log after the answer (a
  // log removed, logs restored from an older copy, a power loss with
  // --fsync=never): ended broken, saying so, its record kept. Of a match
  // an older referee recorded, which did not say (kUnknown), a missing log
  // counts as a creation cut short only in a directory that holds other
  // logs (an empty one, a disk not mounted, would have every log missing).
  const StoredMatch::Acknowledged acknowledged = stored.acknowledged;
  const char* const answered =
      ", though CreateMatch answered for the match (acknowledged)";
  if (!bytes.ok() && absl::IsNotFound(bytes.status())) {
    if (acknowledged == StoredMatch::Acknowledged::kYes) {
      return absl::DataLossError(absl::StrCat(
          "its log ", log_path, " is missing", answered,
          ": it was removed, or the log directory was restored from an "
          "older copy"));
    }
    if (acknowledged == StoredMatch::Acknowledged::kNo ||
        CountLogFiles(DirectoryOf(log_path), 1) > 0) {
      unacknowledged = true;
      return absl::FailedPreconditionError("no log");
    }
  }
  if (!bytes.ok()) {
    return absl::DataLossError(
        absl::StrCat("its log cannot be read: ", bytes.status().message()));
  }
  // A record torn by the crash is cut off: the log resumes after the last
  // complete one.
  const SplitLogResult split = SplitLog(*bytes);
  if (split.tail != SplitLogResult::Tail::kCorrupt &&
      split.records.size() < 2) {
    const std::string holds =
        bytes->empty()           ? "an empty log"
        : split.records.empty()  ? "a log cut inside its header"
        : split.tail_offset != 0 ? "a log cut inside its first checkpoint"
                                 : "a log holding its header alone";
    if (acknowledged == StoredMatch::Acknowledged::kYes) {
      return absl::DataLossError(absl::StrCat(
          "its log holds less than its first checkpoint (", holds, ")",
          answered,
          ": emptied or cut since, or a power loss took its synced "
          "bytes (--fsync=never)"));
    }
    unacknowledged = true;
    return absl::FailedPreconditionError(holds);
  }
  if (stored.referee_contribution.size() != kSeedContributionSize) {
    return absl::DataLossError("the registry lost the seed contribution");
  }
  if (split.tail == SplitLogResult::Tail::kCorrupt) return TailStatus(split);
  const uint64_t complete = split.tail == SplitLogResult::Tail::kClean
                                ? bytes->size()
                                : split.tail_offset;
  bytes->resize(complete);
  absl::StatusOr<std::unique_ptr<FileLogSink>> sink =
      FileLogSink::OpenForAppend(log_path, complete);
  if (!sink.ok()) return sink.status();
  if (journal_in_use()) (*sink)->set_journal(options_.journal);
  return Match::Resume(*bytes, stored.referee_contribution,
                       options_.referee_key, options_.fsync, *std::move(sink),
                       SystemClock::Get());
}

}  // namespace pyramid
