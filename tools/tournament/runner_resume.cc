#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "referee/core/log_format.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/games/printable_text.h"
#include "tools/tournament/runner_impl.h"

namespace pyramid {
namespace runner_internal {
namespace {

// The `n`th name tried for the log `name` (F.pyrlog) in superseded/:
// F.pyrlog, then F.1.pyrlog, F.2.pyrlog, ...; the extension is kept, as
// verify-tournament reads superseded/*.pyrlog.
fs::path SupersededName(const fs::path& name, uint32_t n) {
  if (n == 0) return name;
  fs::path numbered = name.stem();
  numbered += absl::StrCat(".", n);
  numbered += name.extension();
  return numbered;
}

// Renames `from` to `to` when nothing is named `to` (a file, a directory,
// a symlink): true. False when something is, or with `error` set when the
// rename fails otherwise. Never replaces what is at `to`.
bool MoveUnlessTaken(const fs::path& from, const fs::path& to,
                     std::error_code& error) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(),
                RENAME_NOREPLACE) == 0) {
    return true;
  }
  if (errno == EEXIST) return false;
  if (errno != EINVAL && errno != ENOSYS) {
    error.assign(errno, std::generic_category());
    return false;
  }
  // A file system without RENAME_NOREPLACE (NFS, some FUSE): look, then
  // rename. Only this run writes in the output directory (its lock).
  const fs::file_status taken = fs::symlink_status(to, error);
  if (error && error != std::errc::no_such_file_or_directory) return false;
  error.clear();
  if (fs::exists(taken)) return false;
  fs::rename(from, to, error);
  return !error;
}

}  // namespace

std::map<uint32_t, Runner::LostLog> Runner::SortJournal(
    const std::vector<v1::TournamentMatchResult>& entries, const fs::path& dir,
    const std::string& key,
    std::map<uint32_t, v1::TournamentMatchResult>& kept) {
  std::map<uint32_t, LostLog> lost;
  for (v1::TournamentMatchResult entry : entries) {
    if (!IsGenuine(entry) || entry.index() >= scheduled_ ||
        kept.contains(entry.index())) {
      continue;
    }
    const fs::path file = dir / entry.log_file();
    absl::StatusOr<Verdict> verdict = VerifyFileWith(file, key);
    if (!verdict.ok()) {
      const std::string reason = fs::exists(file)
                                     ? std::string(verdict.status().message())
                                     : "missing";
      lost[entry.index()] = LostLog{entry, reason, ""};
      continue;
    }
    // Genuine, and the match journaled: a log of another match (two
    // files swapped, another tournament's log copied in) is not this one's.
    // Its id is enough: the rest of the header was checked against the
    // match asked for when it was journaled, and is not compared with what
    // the runner would ask now (a bot's key file regenerated at the same
    // path would make every match of that bot's lost).
    if (const std::string id = ToHex(verdict->header.match_id());
        id != entry.match_id()) {
      lost[entry.index()] = LostLog{
          entry, absl::StrCat("not its log: it is the log of match ", id), id};
      continue;
    }
    Judge(*verdict, entry);
    lost.erase(entry.index());
    kept.emplace(entry.index(), std::move(entry));
  }
  return lost;
}

std::string Runner::LostLogText(const LostLog& lost) {
  return absl::StrCat("match ", lost.entry.index(), " (", lost.entry.log_file(),
                      ", match id ", lost.entry.match_id(), "): ", lost.reason);
}

std::string Runner::LostLogsError(const std::vector<std::string>& problems,
                                  bool unchanged) const {
  const bool one = problems.size() == 1;
  return absl::StrCat(
      "resuming would play again ", problems.size(),
      one ? " match whose log was genuine when it was journaled but is now "
            "missing or does not verify"
          : " matches whose logs were genuine when they were journaled but "
            "are now missing or do not verify",
      ", and the label of each would then stand twice in the referee's "
      "transparency log: ",
      absl::StrJoin(problems, "; "), ".",
      unchanged ? absl::StrCat(" Nothing in ", t_.output_dir(), " was changed.")
                : "",
      " Restore ", one ? "the log" : "each log",
      " (from a backup, or from a running referee: refctl get-log MATCH_ID "
      "--out=",
      (fs::path(t_.output_dir()) / "LOG_FILE").string(),
      ") and run the same command again, or run it with --replay_lost_logs "
      "to play ",
      one ? "it" : "them", " again");
}

absl::Status Runner::CheckLostLogs() {
  const fs::path out = t_.output_dir();
  if (!fs::exists(out / "tournament.txt")) return absl::OkStatus();
  std::string key;
  if (!t_.referee().empty()) {
    key = link_->public_key();
  } else {
    std::error_code error;
    if (!fs::is_empty(out / "log-journal", error) && !error) {
      return absl::OkStatus();
    }
    absl::StatusOr<std::string> pinned =
        ParsePublicKey((out / "referee.key.pub").string());
    if (!pinned.ok()) return absl::OkStatus();
    key = *std::move(pinned);
  }
  // Shared, read-only: no run plays in the directory while it is checked,
  // and the lock file (the last holder's pid) stays as it is. A directory
  // in use is left to OpenOutput, which says so; one whose last holder
  // ended with a child of it still holding the lock is waited for.
  absl::StatusOr<DirectoryLock> shared = DirectoryLock::AcquireShared(out);
  if (!shared.ok() && !absl::IsNotFound(shared.status())) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<v1::TournamentMatchResult>> entries =
      MatchJournal::Read((out / "journal.jsonl").string());
  if (!entries.ok()) return absl::OkStatus();
  std::map<uint32_t, v1::TournamentMatchResult> kept;
  std::vector<std::string> problems;
  for (auto& [index, lost] : SortJournal(*entries, out, key, kept)) {
    if (!t_.referee().empty()) {
      // Checked, then let go: the resume fetches it again into its file
      // (RestoreRefetched), so that no more than one lost log is held in
      // memory at a time, however many were lost.
      absl::Status fetched = Refetch(lost.entry, key).status();
      if (fetched.code() == absl::StatusCode::kCancelled) return fetched;
      if (fetched.ok()) {
        refetchable_.insert(index);
        continue;
      }
      absl::StrAppend(&lost.reason, "; fetching it again from the referee: ",
                      fetched.message());
    }
    problems.push_back(LostLogText(lost));
  }
  if (problems.empty() || options_.replay_lost_logs) return absl::OkStatus();
  return absl::FailedPreconditionError(
      LostLogsError(problems, /*unchanged=*/true));
}

absl::StatusOr<std::string> Runner::Refetch(
    const v1::TournamentMatchResult& entry, const std::string& key) {
  absl::StatusOr<std::string> bytes = link_->GetLog(entry.match_id());
  if (!bytes.ok()) return bytes.status();
  VerifyOptions options;
  options.pinned_key = key;
  const Verdict verdict = VerifyLog(*bytes, options);
  if (verdict.kind != Verdict::Kind::kGenuine) {
    return absl::DataLossError(WhyNot(verdict));
  }
  if (ToHex(verdict.header.match_id()) != entry.match_id()) {
    return absl::DataLossError(absl::StrCat("it sent the log of match ",
                                            ToHex(verdict.header.match_id())));
  }
  return bytes;
}

absl::Status Runner::Resume() {
  const std::string path = (out_ / "journal.jsonl").string();
  absl::StatusOr<std::vector<v1::TournamentMatchResult>> entries =
      MatchJournal::Read(path);
  if (!entries.ok()) return entries.status();
  if (absl::Status s = ReadCreated(); !s.ok()) return s;
  if (absl::Status s = ReadPairings(); !s.ok()) return s;
  std::map<uint32_t, v1::TournamentMatchResult> kept;
  std::map<uint32_t, LostLog> lost =
      SortJournal(*entries, out_, link_->public_key(), kept);
  if (absl::Status s = SettleLostLogs(*entries, lost, kept); !s.ok()) {
    return s;
  }
  absl::MutexLock lock(&results_mu_);
  const uint32_t started_below = StartedBelow(kept);
  const uint32_t kept_count = TakeKept(std::move(kept));
  {
    absl::MutexLock flight(&flight_mu_);
    started_below_ = started_below;
  }
  if (kept_count > 0) NoteResumed(kept_count, started_below);
  if (absl::Status s = OpenJournal(path); !s.ok()) return s;
  if (absl::Status s = AdoptOrSetAsideUnjournaledLogs(); !s.ok()) return s;
  if (absl::Status s = OpenCreated(); !s.ok()) return s;
  return OpenBotJournal();
}

std::string Runner::LostLogNote(const LostLog& lost) {
  return absl::StrCat(
      "match ", lost.entry.index(), "'s log ", lost.entry.log_file(),
      lost.reason == "missing" ? " was missing"
      : !lost.other_match.empty()
          ? absl::StrCat(" is the log of match ", lost.other_match)
          : absl::StrCat(" did not verify: ", lost.reason));
}

absl::Status Runner::SettleLostLogs(
    const std::vector<v1::TournamentMatchResult>& entries,
    std::map<uint32_t, LostLog>& lost,
    std::map<uint32_t, v1::TournamentMatchResult>& kept) {
  std::vector<std::string> problems;
  for (auto& [index, l] : lost) {
    absl::StatusOr<bool> restored = RestoreRefetched(l, kept);
    if (!restored.ok()) return restored.status();
    if (*restored) continue;
    if (!options_.replay_lost_logs) {
      problems.push_back(LostLogText(l));
      continue;
    }
    if (absl::Status s = PlayLostAgain(entries, l); !s.ok()) return s;
  }
  if (!problems.empty()) {
    return absl::FailedPreconditionError(
        LostLogsError(problems, /*unchanged=*/false));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Runner::RestoreRefetched(
    LostLog& lost, std::map<uint32_t, v1::TournamentMatchResult>& kept) {
  const uint32_t index = lost.entry.index();
  if (!refetchable_.contains(index)) return false;
  // Into its file as its chunks come (whole and synced, or not there),
  // then verified from it as any fetched log is.
  const fs::path file = out_ / lost.entry.log_file();
  if (absl::Status s =
          link_->FetchLog(lost.entry.match_id(), file.parent_path().string(),
                          file.filename().string());
      !s.ok()) {
    if (absl::IsCancelled(s)) return s;
    absl::StrAppend(&lost.reason,
                    "; fetching it again from the referee: ", s.message());
    return false;
  }
  if (const std::string verdict = Verify(lost.entry);
      verdict != kGenuineVerdict) {
    absl::StrAppend(
        &lost.reason,
        "; fetched again from the referee, it did not verify: ", verdict);
    return false;
  }
  Note(absl::StrCat("resuming: ", LostLogNote(lost),
                    "; fetched it again from the referee"));
  kept.emplace(index, lost.entry);
  return true;
}

absl::Status Runner::PlayLostAgain(
    const std::vector<v1::TournamentMatchResult>& entries,
    const LostLog& lost) {
  const uint32_t index = lost.entry.index();
  // A request_id of its own: the referee would otherwise answer with
  // the match whose log was lost.
  std::set<std::string> played;
  for (const v1::TournamentMatchResult& entry : entries) {
    if (entry.index() == index && IsGenuine(entry)) {
      played.insert(entry.match_id());
    }
  }
  attempts_[index] = static_cast<uint32_t>(played.size());
  Note(absl::StrCat("resuming: ", LostLogNote(lost),
                    "; playing it again (--replay_lost_logs): its label ",
                    Label(index),
                    " will stand twice in the referee's transparency log"));
  const fs::path file = out_ / lost.entry.log_file();
  if (!fs::exists(file)) return absl::OkStatus();
  absl::StatusOr<std::string> moved_to = Supersede(file);
  if (!moved_to.ok()) return moved_to.status();
  Note(absl::StrCat(
      "resuming: ", lost.entry.log_file(),
      lost.other_match.empty()
          ? absl::StrCat(" failed verification (", lost.reason, ")")
          : absl::StrCat(" is the log of match ", lost.other_match),
      "; moved to ", *moved_to));
  return absl::OkStatus();
}

uint32_t Runner::StartedBelow(
    const std::map<uint32_t, v1::TournamentMatchResult>& kept) const {
  // Matches start in index order: every one below the highest journaled
  // or created was started by an earlier run.
  uint32_t started_below = 0;
  for (const auto& [index, ids] : created_before_) {
    started_below = std::max(started_below, index + 1);
  }
  for (const auto& [index, entry] : kept) {
    started_below = std::max(started_below, index + 1);
  }
  return std::min(started_below, scheduled_);
}

uint32_t Runner::TakeKept(std::map<uint32_t, v1::TournamentMatchResult> kept) {
  uint32_t kept_count = 0;
  for (auto& [index, entry] : kept) {
    ++kept_count;
    Count(entry);
    results_.emplace(index, std::move(entry));
  }
  return kept_count;
}

void Runner::NoteResumed(uint32_t kept_count, uint32_t started_below) {
  // Those started before the SPRT decided finish and count, even when
  // the decision came in an earlier run.
  uint32_t unfinished = 0;
  for (uint32_t index = 0; index < started_below; ++index) {
    unfinished += !results_.contains(index);
  }
  Note(absl::StrCat(
      "resuming: ", kept_count, " of ", scheduled_,
      " matches already played and verified; ",
      kept_count >= scheduled_ ? "nothing left to play"
      : !sprt_decided_.load()  ? "playing the rest"
      : unfinished == 0
          ? "the SPRT has decided: nothing left to play"
          : absl::StrCat("the SPRT has decided: finishing the ", unfinished,
                         unfinished == 1 ? " match" : " matches",
                         " started before it")));
}

absl::Status Runner::OpenJournal(const std::string& path) {
  absl::StatusOr<std::unique_ptr<MatchJournal>> journal =
      MatchJournal::OpenForAppend(path);
  if (!journal.ok()) return journal.status();
  journal_ = *std::move(journal);
  return absl::OkStatus();
}

absl::Status Runner::ReadCreated() {
  if (t_.referee().empty()) return absl::OkStatus();
  const std::string path = (out_ / "created.jsonl").string();
  absl::StatusOr<std::vector<v1::TournamentMatchResult>> entries =
      MatchJournal::Read(path);
  if (!entries.ok()) {
    return absl::Status(
        entries.status().code(),
        absl::StrCat(entries.status().message(),
                     " (remove it, and the referee's matches are searched "
                     "instead)"));
  }
  for (const v1::TournamentMatchResult& entry : *entries) {
    created_before_[entry.index()].push_back(entry.match_id());
  }
  return absl::OkStatus();
}

absl::Status Runner::OpenCreated() {
  if (t_.referee().empty()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<MatchJournal>> created =
      MatchJournal::OpenForAppend((out_ / "created.jsonl").string(),
                                  /*sync=*/false);
  if (!created.ok()) return created.status();
  absl::MutexLock lock(&created_mu_);
  created_ = *std::move(created);
  return absl::OkStatus();
}

void Runner::NoteCreated(const v1::TournamentMatchResult& created) {
  absl::MutexLock lock(&created_mu_);
  if (created_ == nullptr) return;
  // Not fatal: a resume that misses the line searches the referee.
  if (absl::Status s = created_->Append(created); !s.ok()) {
    Note(std::string(s.message()));
  }
}

bool Runner::AsksFor(const std::string& request_id) const {
  absl::string_view rest = request_id;
  uint32_t index = 0;
  return absl::ConsumePrefix(&rest, RequestIdPrefix()) &&
         absl::SimpleAtoi(rest.substr(0, rest.find('/')), &index) &&
         index < scheduled_ && RequestId(index) == request_id;
}

absl::StatusOr<v1::MatchInfo> Runner::EarlierMatch(
    uint32_t index, const std::string& request_id) {
  // A match created for the request_id that broke was replaced by a newer
  // one, if any: the newest first.
  if (const auto it = created_before_.find(index);
      it != created_before_.end()) {
    for (auto id = it->second.rbegin(); id != it->second.rend(); ++id) {
      absl::StatusOr<v1::MatchInfo> info = link_->GetMatch(*id);
      if (info.status().code() == absl::StatusCode::kCancelled) {
        return info.status();
      }
      if (info.ok() && info->request_id() == request_id &&
          info->status() != v1::MATCH_BROKEN) {
        return info;
      }
    }
  }
  // Not recorded: the run was killed between the referee's answer and
  // its line in created.jsonl. The referee's matches, newest first, down
  // to this one (the search goes on from there for the next one asked:
  // every match it looks for was created before this run searched).
  // Only the request_ids this run asks for are kept, the newest match of
  // each: at most one per scheduled match, however many the referee lists.
  // A referee that lists without end is searched until an interruption
  // stops the run at once.
  absl::MutexLock lock(&search_mu_);
  while (!searched_.contains(request_id) && !search_done_) {
    if (stopped_at_once_.load()) return absl::CancelledError("interrupted");
    v1::ListMatchesRequest request;
    request.set_page_size(1000);
    request.set_page_token(search_page_);
    absl::StatusOr<v1::ListMatchesResponse> page = link_->ListMatches(request);
    if (!page.ok()) return page.status();
    for (const v1::MatchInfo& info : page->matches()) {
      if (info.status() != v1::MATCH_BROKEN && AsksFor(info.request_id())) {
        searched_.emplace(info.request_id(), info);
      }
    }
    search_page_ = page->next_page_token();
    search_done_ = search_page_.empty();
  }
  const auto found = searched_.find(request_id);
  if (found == searched_.end()) {
    return absl::NotFoundError(
        absl::StrCat("the referee lists no match for request_id ", request_id));
  }
  // Found by a search, so not in created.jsonl: the next resume finds it
  // there.
  v1::TournamentMatchResult created;
  created.set_index(index);
  created.set_match_id(found->second.match_id());
  for (const v1::MatchSeatInfo& seat : found->second.seats()) {
    created.add_seats(seat.name());
  }
  NoteCreated(created);
  return found->second;
}

absl::Status Runner::AdoptOrSetAsideUnjournaledLogs() {
  std::set<std::string> journaled;
  for (const auto& [index, result] : results_) {
    journaled.insert(result.log_file());
  }
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(out_ / "logs", error)) {
    if (entry.path().extension() == log_format::kFileExtension)
      files.push_back(entry.path());
    // A fetched log's download the interruption cut (FetchLog writes it to
    // LOG.tmp as it comes, renamed only once complete and synced): never a
    // log, and a stray in the directory verify-tournament checks.
    const std::string name = entry.path().filename().string();
    if (absl::EndsWith(name, ".pyrlog.tmp") && entry.is_regular_file()) {
      std::error_code removed;
      fs::remove(entry.path(), removed);
      Note(absl::StrCat("resuming: logs/", PrintableText(name),
                        removed
                            ? absl::StrCat(" (a write the interruption cut) "
                                           "could not be removed: ",
                                           removed.message())
                            : " (a write the interruption cut) removed"));
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const std::string log_file = "logs/" + file.filename().string();
    if (journaled.contains(log_file)) continue;
    std::optional<v1::TournamentMatchResult> adopted = Adoptable(file);
    if (adopted.has_value()) {
      // Sealed, so public: the interruption may have come before the
      // referee made it so.
      if (absl::Status s = MakeLogPublic(file.string()); !s.ok()) {
        Note(std::string(s.message()));
      }
      adopted->set_log_file(log_file);
      if (absl::Status s = journal_->Append(*adopted); !s.ok()) {
        Note(std::string(s.message()));
        ++unjournaled_;  // As Record counts it: MatchesSoFar says so.
      }
      Note(absl::StrCat("resuming: match ", adopted->index(), " (", log_file,
                        ") was sealed before the interruption; "
                        "kept, not played again"));
      Count(*adopted);
      results_.emplace(adopted->index(), *std::move(adopted));
      continue;
    }
    absl::StatusOr<std::string> moved_to = Supersede(file);
    if (!moved_to.ok()) return moved_to.status();
    Note(absl::StrCat("resuming: ", log_file,
                      " is not a kept match's log "
                      "(cut short, or superseded); moved to ",
                      *moved_to));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Runner::Supersede(const fs::path& file) {
  const fs::path superseded = out_ / "superseded";
  std::error_code error;
  fs::create_directories(superseded, error);
  for (uint32_t n = 0; !error; ++n) {
    const fs::path name = SupersededName(file.filename(), n);
    if (MoveUnlessTaken(file, superseded / name, error)) {
      return (fs::path("superseded") / name).string();
    }
  }
  return absl::InternalError(absl::StrCat(
      "resuming: cannot move ", file.string(), " to ", superseded.string(),
      "/: ", error.message(),
      "; not resuming with it left in logs/ (move it aside and run "
      "again)"));
}

std::optional<v1::TournamentMatchResult> Runner::Adoptable(
    const fs::path& file) const {
  absl::StatusOr<Verdict> genuine = VerifyFile(file);
  if (!genuine.ok()) return std::nullopt;
  const Verdict& verdict = *genuine;
  for (uint32_t index = 0; index < scheduled_; ++index) {
    if (verdict.header.label() != Label(index)) continue;
    if (results_.contains(index)) return std::nullopt;
    // A Swiss round not recorded was never paired, so none of its matches
    // was created: no log can be its.
    const ScheduledMatch* scheduled = ScheduledAt(index);
    if (scheduled == nullptr || verdict.header.seats_size() !=
                                    static_cast<int>(scheduled->bots.size())) {
      return std::nullopt;
    }
    v1::TournamentMatchResult result;
    result.set_index(index);
    result.set_match_id(ToHex(verdict.header.match_id()));
    for (size_t seat = 0; seat < scheduled->bots.size(); ++seat) {
      const std::string& name = names_[scheduled->bots[seat]];
      if (verdict.header.seats(seat).name() != name) return std::nullopt;
      result.add_seats(name);
    }
    *result.mutable_outcome() = verdict.outcome;
    result.set_moves(verdict.moves);
    result.set_verdict(kGenuineVerdict);
    return result;
  }
  return std::nullopt;
}

const ScheduledMatch* Runner::ScheduledAt(uint32_t index) const {
  if (t_.format() != v1::SWISS) {
    return index < fixed_.size() ? &fixed_[index] : nullptr;
  }
  const auto it = scheduled_matches_.find(index);
  return it == scheduled_matches_.end() ? nullptr : &it->second;
}

absl::Status Runner::ReadPairings() {
  if (t_.format() != v1::SWISS) return absl::OkStatus();
  const fs::path path = out_ / "pairings.jsonl";
  absl::StatusOr<std::vector<v1::TournamentMatchResult>> entries =
      MatchJournal::Read(path.string());
  if (!entries.ok()) return entries.status();
  auto damaged = [&](size_t line, const std::string& why) {
    return absl::DataLossError(absl::StrCat(
        path.string(), ": line ", line + 1, ": ", why,
        "; not resuming without the pairing of the Swiss rounds an earlier "
        "run played"));
  };
  std::map<std::string, int> bot_of;
  for (int bot = 0; bot < static_cast<int>(names_.size()); ++bot) {
    bot_of[names_[bot]] = bot;
  }
  std::string text;
  for (size_t line = 0; line < entries->size(); ++line) {
    const v1::TournamentMatchResult& entry = (*entries)[line];
    if (entry.index() != line || line >= scheduled_) {
      return damaged(line, absl::StrCat("match ", entry.index(),
                                        " where match ", line, " belongs"));
    }
    ScheduledMatch match;
    match.index = entry.index();
    for (const std::string& name : entry.seats()) {
      const auto bot = bot_of.find(name);
      if (bot == bot_of.end()) {
        return damaged(line, absl::StrCat("no bot is named ", name));
      }
      match.bots.push_back(bot->second);
    }
    if (match.bots.size() != 2 || match.bots[0] == match.bots[1]) {
      return damaged(line, "not two distinct bots");
    }
    absl::StatusOr<std::string> encoded = MatchJournal::Line(entry);
    if (!encoded.ok()) return encoded.status();
    text += *encoded;
    scheduled_matches_[match.index] = std::move(match);
  }
  if (entries->size() % swiss_per_round_ != 0) {
    return damaged(entries->size() - 1, "a round cut short");
  }
  swiss_recorded_rounds_ = entries->size() / swiss_per_round_;
  for (uint32_t round = 0; round < swiss_recorded_rounds_; ++round) {
    // With an odd number of bots, the one the round does not seat.
    std::vector<bool> seated(names_.size(), false);
    for (uint32_t i = 0; i < swiss_per_round_; ++i) {
      for (int bot : scheduled_matches_[round * swiss_per_round_ + i].bots) {
        seated[bot] = true;
      }
    }
    for (int bot = 0; bot < static_cast<int>(seated.size()); ++bot) {
      if (!seated[bot]) swiss_byes_.push_back(bot);
    }
  }
  pairings_ = std::move(text);
  return absl::OkStatus();
}

}  // namespace runner_internal
}  // namespace pyramid
