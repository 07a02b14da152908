#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "tools/tournament/report.h"
#include "tools/tournament/runner_impl.h"

namespace pyramid {
namespace runner_internal {

namespace {

// +1 per other seat ranked below `seat`, +0.5 per seat sharing its rank.
double PairwisePoints(const v1::Outcome& outcome, int seat) {
  double points = 0;
  for (int j = 0; j < outcome.seats_size(); ++j) {
    if (j == seat) continue;
    const uint32_t mine = outcome.seats(seat).rank();
    const uint32_t theirs = outcome.seats(j).rank();
    points += theirs > mine ? 1.0 : theirs == mine ? 0.5 : 0.0;
  }
  return points;
}

}  // namespace

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
  return interrupted_.load() || sprt_decided_.load() || wrong_key_.load();
}

void Runner::PlayAll() {
  start_ = absl::Now();
  std::thread reporter([this] { ProgressLoop(); });
  if (t_.format() == v1::SWISS) {
    for (uint32_t round = 0; round < t_.rounds() && !Stopped(); ++round) {
      PlayBatch(SwissMatches(round));
    }
  } else {
    PlayBatch(fixed_);
  }
  playing_done_ = true;
  reporter.join();
  ShowProgress(/*final=*/true);
}

std::vector<ScheduledMatch> Runner::SwissMatches(uint32_t round) {
  const int n = t_.bots_size();
  std::vector<double> points(n, 0);
  std::vector<std::vector<int>> games(n, std::vector<int>(n, 0));
  std::map<std::string, int> index;
  for (int i = 0; i < n; ++i) index[names_[i]] = i;
  {
    absl::MutexLock lock(&results_mu_);
    for (const auto& [i, result] : results_) {
      if (i >= round * swiss_per_round_) continue;
      const int a = index[result.seats(0)];
      const int b = index[result.seats(1)];
      ++games[a][b];
      ++games[b][a];
      if (result.verdict() != kGenuine) continue;
      points[a] += PairwisePoints(result.outcome(), 0);
      points[b] += PairwisePoints(result.outcome(), 1);
    }
  }
  // A bye is worth the two games the bot would have played.
  for (int bot : swiss_byes_) points[bot] += 2;
  std::vector<bool> had_bye(n, false);
  for (int bot : swiss_byes_) had_bye[bot] = true;
  const SwissRound pairing = PairSwissRound(points, games, had_bye);
  if (pairing.bye >= 0) swiss_byes_.push_back(pairing.bye);
  return SwissRoundMatches(pairing, round * swiss_per_round_);
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
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  const size_t n = std::min<size_t>(t_.concurrency(), todo.size());
  for (size_t i = 0; i < n; ++i) {
    workers.emplace_back([&] {
      for (size_t k; !Stopped() && (k = next.fetch_add(1)) < todo.size();) {
        std::optional<v1::TournamentMatchResult> result = Play(*todo[k]);
        if (result.has_value()) Record(*std::move(result));
      }
    });
  }
  for (auto& w : workers) w.join();
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
  // Fresh for this attempt, the same for the link's retries of it: an
  // answer lost to a restarting referee does not leave a second match
  // under the same label.
  request.set_request_id(ToHex(SystemRandomBytes(16)));
  absl::StatusOr<v1::CreateMatchResponse> created = link_->CreateMatch(request);
  if (created.status().code() == absl::StatusCode::kCancelled) {
    return std::nullopt;
  }
  if (!created.ok()) {
    result.set_verdict(
        absl::StrCat("not played: ", created.status().message()));
    return result;
  }
  result.set_match_id(created->match_id());
  if (absl::Status s = link_->AwaitEnd(created->match_id()); !s.ok()) {
    if (s.code() == absl::StatusCode::kCancelled) return std::nullopt;
    result.set_verdict(absl::StrCat("not finished: ", s.message()));
    return result;
  }
  const std::string file =
      RefereeLink::LogFileName(t_.game().game(), created->match_id());
  result.set_log_file("logs/" + file);
  if (absl::Status s =
          link_->FetchLog(created->match_id(), (out_ / "logs").string(), file);
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
  const MatchPage page = RenderMatchPage(*bytes, PinnedOptions());
  result.set_verdict(Judge(page.verdict, result));
  StopOnWrongKey(page.verdict, result.log_file());
  WritePage(result.log_file(), page);
}

void Runner::WriteViewerPage(const v1::TournamentMatchResult& result) {
  if (result.log_file().empty()) return;
  absl::StatusOr<std::string> bytes =
      ReadFileToString((out_ / result.log_file()).string());
  if (!bytes.ok()) return;
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
