#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "referee/core/log_format.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/service/match_id.h"
#include "tools/tournament/report.h"
#include "tools/tournament/runner_impl.h"
#include "tools/tournament/standings.h"

namespace pyramid {
namespace runner_internal {

v1::ClockSettings MatchClocks(v1::ClockSettings clocks) {
  const uint32_t grace_ms =
      static_cast<uint32_t>(absl::ToInt64Milliseconds(RestartBackoff().max));
  if (clocks.seed_timeout_ms() == 0 && clocks.commit_timeout_ms() != 0 &&
      clocks.commit_timeout_ms() < grace_ms) {
    clocks.set_seed_timeout_ms(grace_ms);
  }
  return clocks;
}

bool Runner::Stopped() const {
  return interrupted_.load() || sprt_decided_.load() || wrong_key_.load() ||
         halted_.load();
}

void Runner::Halt(const absl::Status& why) {
  {
    absl::MutexLock lock(&halt_mu_);
    if (halted_.exchange(true)) return;
    halt_reason_ = why;
  }
  Note(absl::StrCat("tournament: ", why.message(),
                    ": starting no more matches (those in flight finish); ",
                    HaltAdvice(why)));
}

std::string Runner::HaltAdvice(const absl::Status& why) const {
  return absl::StrCat(
      absl::IsResourceExhausted(why) ? "once there is room"
                                     : "once the cause is mended",
      ", run the same command again to resume from ", out_.string());
}

std::optional<size_t> Runner::Start(
    size_t& next, const std::vector<const ScheduledMatch*>& todo) {
  absl::MutexLock lock(&flight_mu_);
  if (next >= todo.size()) return std::nullopt;
  const uint32_t index = todo[next]->index;
  const bool started_before_the_decision =
      index < started_below_ && !interrupted_.load() && !wrong_key_.load() &&
      !halted_.load();
  if (Stopped() && !started_before_the_decision) return std::nullopt;
  started_below_ = std::max(started_below_, index + 1);
  ++in_flight_;
  return next++;
}

void Runner::Done() {
  absl::MutexLock lock(&flight_mu_);
  --in_flight_;
}

void Runner::PlayAll() {
  start_ = absl::Now();
  {
    absl::MutexLock lock(&flight_mu_);
    playing_ = true;
  }
  // An interruption that came before (nothing in flight) stops at once,
  // before any match starts.
  CheckInterrupted();
  std::thread reporter([this] { ProgressLoop(); });
  if (t_.format() == v1::SWISS) {
    // The rounds Prepare counted in scheduled_, never more.
    for (uint32_t round = 0;
         uint64_t{round} * swiss_per_round_ < scheduled_ && !Stopped();
         ++round) {
      absl::StatusOr<std::vector<ScheduledMatch>> matches = SwissMatches(round);
      if (!matches.ok()) {
        Note(absl::StrCat("cannot record the pairing of Swiss round ",
                          round + 1, ": ", matches.status().message(),
                          "; its matches and those of later rounds are not "
                          "played (run the same command again to resume)"));
        break;
      }
      PlayBatch(*matches);
    }
  } else {
    PlayBatch(fixed_);
  }
  {
    absl::MutexLock lock(&flight_mu_);
    playing_ = false;
  }
  playing_done_ = true;
  reporter.join();
  ShowProgress(/*final=*/true);
}

absl::StatusOr<std::vector<ScheduledMatch>> Runner::SwissMatches(
    uint32_t round) {
  const uint32_t first = round * swiss_per_round_;
  if (round < swiss_recorded_rounds_) {
    std::vector<ScheduledMatch> recorded;
    for (uint32_t index = first; index < first + swiss_per_round_; ++index) {
      recorded.push_back(scheduled_matches_.at(index));
    }
    return recorded;
  }
  const int n = t_.bots_size();
  std::vector<double> points(n, 0);
  std::vector<std::vector<int>> games(n, std::vector<int>(n, 0));
  std::map<std::string, int> index;
  for (int i = 0; i < n; ++i) index[names_[i]] = i;
  {
    absl::MutexLock lock(&results_mu_);
    for (const auto& [i, result] : results_) {
      if (i >= first) continue;
      const int a = index[result.seats(0)];
      const int b = index[result.seats(1)];
      ++games[a][b];
      ++games[b][a];
      if (!IsGenuine(result)) continue;
      points[a] += PairwisePoints(result.outcome(), 0);
      points[b] += PairwisePoints(result.outcome(), 1);
    }
  }
  // A bye is worth the two games the bot would have played.
  for (int bot : swiss_byes_) points[bot] += 2;
  std::vector<bool> had_bye(n, false);
  for (int bot : swiss_byes_) had_bye[bot] = true;
  const SwissRound pairing = PairSwissRound(points, games, had_bye);
  std::vector<ScheduledMatch> matches = SwissRoundMatches(pairing, first);
  // Before any match of the round is created: a resume must know the
  // seats of every label an earlier run may have used, even when a result
  // the round was paired from is played again (a journaled match that did
  // not verify) or was never journaled.
  if (absl::Status s = RecordPairing(matches); !s.ok()) return s;
  if (pairing.bye >= 0) swiss_byes_.push_back(pairing.bye);
  ++swiss_recorded_rounds_;
  return matches;
}

absl::Status Runner::RecordPairing(const std::vector<ScheduledMatch>& matches) {
  std::string text = pairings_;
  for (const ScheduledMatch& match : matches) {
    v1::TournamentMatchResult line;
    line.set_index(match.index);
    for (int bot : match.bots) line.add_seats(names_[bot]);
    absl::StatusOr<std::string> encoded = MatchJournal::Line(line);
    if (!encoded.ok()) return encoded.status();
    text += *encoded;
  }
  if (absl::Status s =
          WriteFileAtomically((out_ / "pairings.jsonl").string(), text);
      !s.ok()) {
    return s;
  }
  pairings_ = std::move(text);
  return absl::OkStatus();
}

void Runner::PlayBatch(const std::vector<ScheduledMatch>& batch) {
  for (const ScheduledMatch& match : batch) {
    scheduled_matches_[match.index] = match;
  }
  std::vector<const ScheduledMatch*> todo;
  {
    absl::MutexLock lock(&results_mu_);
    for (const ScheduledMatch& match : batch) {
      if (!results_.contains(match.index)) todo.push_back(&match);
    }
  }
  size_t next = 0;  // Under flight_mu_ (Start).
  std::vector<std::thread> workers;
  const size_t n = std::min<size_t>(t_.concurrency(), todo.size());
  for (size_t i = 0; i < n; ++i) {
    workers.emplace_back([&] {
      // A match started is in flight until it is recorded (or abandoned).
      for (std::optional<size_t> k; (k = Start(next, todo));) {
        std::optional<v1::TournamentMatchResult> result = Play(*todo[*k]);
        if (result.has_value()) Record(*std::move(result));
        Done();
      }
    });
  }
  for (auto& w : workers) w.join();
}

std::string Runner::RequestIdPrefix() const {
  return absl::StrCat("tournament/", run_id_, "/");
}

std::string Runner::RequestId(uint32_t index) const {
  std::string id = absl::StrCat(RequestIdPrefix(), index);
  if (const auto it = attempts_.find(index); it != attempts_.end()) {
    absl::StrAppend(&id, "/replay-", it->second);
  }
  return id;
}

std::optional<v1::TournamentMatchResult> Runner::Play(
    const ScheduledMatch& scheduled) {
  v1::TournamentMatchResult result;
  result.set_index(scheduled.index);
  v1::CreateMatchRequest request;
  *request.mutable_game() = t_.game();
  for (int bot : scheduled.bots) {
    request.add_seats()->set_bot_id(bot_ids_[bot]);
    result.add_seats(names_[bot]);
  }
  *request.mutable_clocks() = MatchClocks(t_.clocks());
  request.set_forfeit_policy(t_.forfeit_policy());
  request.set_label(Label(scheduled.index));
  // The same for this match in every run of the tournament (and for the
  // link's retries): an answer lost to a restarting referee, or a run
  // interrupted after the match was created, does not leave a second
  // match under the same label. A match that broke (it will never be
  // sealed) is replaced by the referee with a new one for the request_id.
  request.set_request_id(RequestId(scheduled.index));
  absl::StatusOr<v1::CreateMatchResponse> created = link_->CreateMatch(request);
  if (created.status().code() == absl::StatusCode::kCancelled) {
    return std::nullopt;
  }
  // The referee holds a match for this request_id whose seats name other
  // bots: an earlier run's (each run registers the bots anew), created
  // before an interruption. Its result is this match's.
  if (created.status().code() == absl::StatusCode::kFailedPrecondition &&
      !t_.referee().empty()) {
    absl::StatusOr<v1::MatchInfo> earlier =
        EarlierMatch(scheduled.index, request.request_id());
    if (earlier.status().code() == absl::StatusCode::kCancelled) {
      return std::nullopt;
    }
    if (earlier.ok()) {
      if (absl::Status s = CheckMatchIdForm(earlier->match_id()); !s.ok()) {
        result.set_verdict(absl::StrCat(
            "not played: the referee lists its match with ", s.message()));
        return result;
      }
      return TakeOver(std::move(result), *earlier);
    }
    if (!absl::IsNotFound(earlier.status())) {
      result.set_verdict(absl::StrCat(
          "not played: ", created.status().message(),
          "; looking for that match: ", earlier.status().message()));
      return result;
    }
  }
  if (!created.ok()) {
    // The embedded referee's disk is the output directory's: full, no
    // later match can be recorded either.
    if (t_.referee().empty() && absl::IsResourceExhausted(created.status())) {
      Halt(absl::ResourceExhaustedError(
          absl::StrCat("the embedded referee cannot record new matches (",
                       created.status().message(), ")")));
    }
    result.set_verdict(
        absl::StrCat("not played: ", created.status().message()));
    return result;
  }
  // The id names the match's files: a referee's answer is checked first.
  if (absl::Status s = CheckMatchIdForm(created->match_id()); !s.ok()) {
    result.set_verdict(absl::StrCat(
        "not played: the referee answered CreateMatch with ", s.message()));
    return result;
  }
  result.set_match_id(created->match_id());
  NoteCreated(result);
  return Finish(std::move(result));
}

std::optional<v1::TournamentMatchResult> Runner::TakeOver(
    v1::TournamentMatchResult result, const v1::MatchInfo& earlier) {
  result.set_match_id(earlier.match_id());
  const std::string what =
      absl::StrCat("match ", result.index(), " (", Label(result.index()),
                   ", match id ", earlier.match_id(), ")");
  // Its seats are this match's unless a Swiss round was paired otherwise
  // than in the run that created it (a result that changed since): it is
  // then not this match, and is not counted as it.
  bool same_seats = earlier.seats_size() == result.seats_size();
  for (int i = 0; same_seats && i < result.seats_size(); ++i) {
    same_seats = earlier.seats(i).name() == result.seats(i);
  }
  if (!same_seats) {
    std::vector<std::string> seats;
    for (const v1::MatchSeatInfo& seat : earlier.seats()) {
      seats.push_back(seat.name());
    }
    result.set_verdict(absl::StrCat(
        "not played: the referee already holds match ", earlier.match_id(),
        " under its label, created by an earlier run with other seats (",
        absl::StrJoin(seats, ", "),
        "); playing it again would put its label in the referee's "
        "transparency log twice"));
    Note(absl::StrCat("resuming: ", what, ": ", result.verdict()));
    return result;
  }
  if (earlier.status() == v1::MATCH_RUNNING) {
    Note(absl::StrCat(
        "resuming: ", what,
        " was created before the interruption and is still running on the "
        "referee; its seats are the earlier run's bots, which this run's "
        "(registered anew) cannot play: waiting for its end (they forfeit at "
        "their deadlines)"));
  }
  std::optional<v1::TournamentMatchResult> finished = Finish(std::move(result));
  if (!finished.has_value()) return std::nullopt;
  if (!IsGenuine(*finished)) {
    Note(absl::StrCat("resuming: ", what,
                      " was created before the interruption; not played "
                      "again, and its result is not counted: ",
                      finished->verdict()));
    return finished;
  }
  std::vector<std::string> ranks;
  for (int i = 0; i < finished->outcome().seats_size(); ++i) {
    const v1::SeatOutcome& seat = finished->outcome().seats(i);
    ranks.push_back(absl::StrCat(finished->seats(i), " ", seat.rank(),
                                 seat.forfeited() ? " (forfeited)" : ""));
    // The run that hosted its bots stopped before its end (or its end was
    // not seen): a forfeit may be the host's. Counted all the same, but
    // marked, in the journal too, so that every later resume keeps it.
    if (seat.forfeited()) finished->set_unhosted_forfeit(true);
  }
  Note(absl::StrCat(
      "resuming: ", what,
      " was created before the interruption and ended without the runner; "
      "its result stands as the referee sealed it, not played again (ranks: ",
      absl::StrJoin(ranks, ", "), ")",
      finished->unhosted_forfeit()
          ? "; its forfeits came while the runner was not hosting it: "
            "marked in results.json and report.html"
          : ""));
  return finished;
}

std::optional<v1::TournamentMatchResult> Runner::Finish(
    v1::TournamentMatchResult result) {
  const std::string match_id = result.match_id();
  // The clocks, game and seats Play asked for (an earlier run's match,
  // taken over, had the same): a running referee silent for longer than
  // they allow a decision, or going beyond what the game's rules allow a
  // match, is not playing the match, and the wait ends
  // (RefereeLink::AwaitEnd).
  if (absl::Status s = link_->AwaitEnd(match_id, MatchClocks(t_.clocks()),
                                       t_.game(), result.seats_size());
      !s.ok()) {
    if (s.code() == absl::StatusCode::kCancelled) return std::nullopt;
    result.set_verdict(absl::StrCat("not finished: ", s.message()));
    return result;
  }
  const std::string file = log_format::FileName(t_.game().game(), match_id);
  result.set_log_file("logs/" + file);
  if (absl::Status s =
          link_->FetchLog(match_id, (out_ / "logs").string(), file);
      !s.ok()) {
    if (s.code() == absl::StatusCode::kCancelled) return std::nullopt;
    result.set_verdict(absl::StrCat("log not fetched: ", s.message()));
    return result;
  }
  VerifyAndShow(result);
  return result;
}

void Runner::VerifyAndShow(v1::TournamentMatchResult& result) {
  absl::StatusOr<std::string> bytes =
      ReadFileToString((out_ / result.log_file()).string());
  if (!bytes.ok()) {
    result.set_verdict(std::string(bytes.status().message()));
    return;
  }
  LogVerified(out_ / result.log_file());
  const MatchPage page = RenderMatchPage(*bytes, PinnedOptions());
  result.set_verdict(Judge(page.verdict, result));
  if (IsGenuine(result)) {
    if (const std::string differs =
            HeaderDiffers(page.verdict.header, Expected(result));
        !differs.empty()) {
      result.set_verdict(absl::StrCat(
          "genuine, but not the match the runner asked for: ", differs));
    }
  }
  StopOnWrongKey(page.verdict, result.log_file());
  WritePage(result.log_file(), page);
}

void Runner::WriteViewerPage(const v1::TournamentMatchResult& result) {
  if (result.log_file().empty()) return;
  absl::StatusOr<std::string> bytes =
      ReadFileToString((out_ / result.log_file()).string());
  if (!bytes.ok()) return;
  LogVerified(out_ / result.log_file());
  WritePage(result.log_file(), RenderMatchPage(*bytes, PinnedOptions()));
}

void Runner::WritePage(const std::string& log_file, const MatchPage& page) {
  const fs::path path = out_ / ViewerPageOf(log_file);
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  if (absl::Status s = WriteFile(path, page.html); !s.ok()) {
    Note(std::string(s.message()));
  }
}

}  // namespace runner_internal
}  // namespace pyramid
