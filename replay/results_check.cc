#include "replay/results_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/message_differencer.h"
#include "referee/crypto/bytes.h"
#include "referee/games/printable_text.h"
#include "tools/tournament/match_verdict.h"
#include "tools/tournament/ratings.h"
#include "tools/tournament/sprt.h"
#include "tools/tournament/standings.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

namespace {

// The problems found: the first kMaxProblems, then a count of the others.
class Problems {
 public:
  template <typename Line>
  void emplace_back(Line&& line) {
    if (lines_.size() < kMaxProblems) {
      lines_.emplace_back(std::forward<Line>(line));
    } else {
      ++more_;
    }
  }

  // The lines; the number of the others in *unlisted, or without it in a
  // last line.
  std::vector<std::string> Lines(uint64_t* unlisted) && {
    if (unlisted != nullptr) {
      *unlisted = more_;
    } else if (more_ > 0) {
      lines_.push_back(absl::StrCat("results.json: and ", more_,
                                    " more problems (the first ", kMaxProblems,
                                    " are listed)"));
    }
    return std::move(lines_);
  }

 private:
  std::vector<std::string> lines_;
  uint64_t more_ = 0;
};

// Whether `a` and `b` agree within `absolute`, or `relative` of the larger
// magnitude: infinities only with themselves, NaN with NaN.
bool Close(double a, double b, double absolute, double relative) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <=
         std::max(absolute, relative * std::max(std::fabs(a), std::fabs(b)));
}

bool RelativelyClose(double a, double b) {
  return Close(a, b, kRelativeTolerance, kRelativeTolerance);
}

bool RatingClose(double a, double b) {
  return Close(a, b, kRatingTolerance, 0);
}

// "results.json says A, the logs B", the two doubles told apart: with
// every digit when the short forms are the same.
std::string Says(double claimed, double recomputed) {
  std::string a = absl::StrCat(claimed);
  std::string b = absl::StrCat(recomputed);
  if (a == b) {
    a = absl::StrFormat("%.17g", claimed);
    b = absl::StrFormat("%.17g", recomputed);
  }
  return absl::StrCat("results.json says ", a, ", the logs ", b);
}

template <typename T>
std::string Says(const T& claimed, const T& recomputed) {
  return absl::StrCat("results.json says ", claimed, ", the logs ", recomputed);
}

// "normal: rank 1 (score 3), rank 2 (score 1, forfeited)"; past
// kMaxListedSeats seats, ", ... (N seats)".
std::string OutcomeText(const v1::Outcome& outcome) {
  std::vector<std::string> seats;
  for (const v1::SeatOutcome& seat : outcome.seats()) {
    if (static_cast<int>(seats.size()) == kMaxListedSeats) {
      seats.push_back(absl::StrCat("... (", outcome.seats_size(), " seats)"));
      break;
    }
    seats.push_back(absl::StrCat("rank ", seat.rank(), " (score ", seat.score(),
                                 seat.forfeited() ? ", forfeited)" : ")"));
  }
  // The termination is an enum a JSON file can set to any number.
  const std::string& termination = v1::Termination_Name(outcome.termination());
  return absl::StrCat(
      termination.empty() ? absl::StrCat(outcome.termination()) : termination,
      ": ", seats.empty() ? "no seats" : absl::StrJoin(seats, ", "));
}

template <typename Seats>
std::string SeatListOf(const Seats& seats) {
  std::vector<std::string> quoted;
  for (const std::string& seat : seats) {
    if (static_cast<int>(quoted.size()) == kMaxListedSeats) {
      quoted.push_back(absl::StrCat("... (", seats.size(), " seats)"));
      break;
    }
    quoted.push_back(QuotedHostText(seat));
  }
  return absl::StrJoin(quoted, ", ");
}

std::string SeatsText(
    const google::protobuf::RepeatedPtrField<std::string>& seats) {
  return absl::StrCat("[", QuotedSeatList(seats), "]");
}

bool SameSeats(const google::protobuf::RepeatedPtrField<std::string>& a,
               const google::protobuf::RepeatedPtrField<std::string>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// The schedule's entries by index (an index listed twice: its first).
std::map<uint32_t, const v1::ScheduleEntry*> ByIndex(
    const v1::TournamentSchedule& schedule) {
  std::map<uint32_t, const v1::ScheduleEntry*> entries;
  for (const v1::ScheduleEntry& entry : schedule.matches()) {
    entries.emplace(entry.index(), &entry);
  }
  return entries;
}

// What results.json says of the match of a counted log, against `log`.
void CheckCountedResult(const v1::TournamentMatchResult& result,
                        const CountedMatch& log, const std::string& match,
                        Problems& problems) {
  if (!IsGenuine(result)) {
    problems.emplace_back(absl::StrCat(
        match, ": its verdict is ", QuotedHostText(result.verdict()),
        ", but its log ", PrintableText(log.log_file),
        " is genuine, sealed and included: the match counts"));
    return;
  }
  if (result.match_id() != log.match_id) {
    problems.emplace_back(
        absl::StrCat(match, ": match id: results.json says ",
                     QuotedHostText(result.match_id()), ", its log ",
                     PrintableText(log.log_file), " ", log.match_id));
  }
  if (!google::protobuf::util::MessageDifferencer::Equals(result.outcome(),
                                                          log.outcome)) {
    problems.emplace_back(absl::StrCat(
        match, ": outcome: results.json says ", OutcomeText(result.outcome()),
        "; its log ", PrintableText(log.log_file), " ",
        OutcomeText(log.outcome)));
  }
  if (result.log_file() != log.log_file) {
    problems.emplace_back(absl::StrCat(match, ": log_file: results.json says ",
                                       QuotedHostText(result.log_file()),
                                       ", the match's log is ",
                                       PrintableText(log.log_file)));
  }
  if (result.moves() != log.moves) {
    problems.emplace_back(
        absl::StrCat(match, ": moves: ", Says(result.moves(), log.moves)));
  }
}

// Each result of results.json against the schedule and the counted logs.
void CheckMatches(const v1::TournamentResults& results,
                  const v1::TournamentSchedule& schedule,
                  const std::map<uint32_t, CountedMatch>& counted,
                  Problems& problems) {
  if (results.matches_size() > schedule.matches_size()) {
    // Each result is of a scheduled match, listed once: one line, not one
    // per result, and none of them looked at.
    problems.emplace_back(absl::StrCat(
        "results.json: ", results.matches_size(),
        " results, more than the schedule's ", schedule.matches_size(),
        " matches (a result is of a scheduled match, listed once); the "
        "results are not checked one by one"));
    return;
  }
  const std::map<uint32_t, const v1::ScheduleEntry*> entries =
      ByIndex(schedule);
  std::set<uint32_t> seen;
  bool ordered = true;
  for (int i = 0; i < results.matches_size(); ++i) {
    const v1::TournamentMatchResult& result = results.matches(i);
    const std::string match =
        absl::StrCat("results.json: match ", result.index());
    if (!seen.insert(result.index()).second) {
      problems.emplace_back(absl::StrCat(match, ": listed more than once"));
      continue;
    }
    if (ordered && i > 0 && result.index() < results.matches(i - 1).index()) {
      ordered = false;
      problems.emplace_back(absl::StrCat(
          match, ": listed after match ", results.matches(i - 1).index(),
          "; the runner lists results in index order"));
    }
    const auto entry = entries.find(result.index());
    if (entry == entries.end()) {
      problems.emplace_back(absl::StrCat(match, ": not in the schedule"));
      continue;
    }
    if (entry->second->skipped()) {
      problems.emplace_back(absl::StrCat(
          match, ": has a result, but the schedule marks it skipped"));
    }
    if (!SameSeats(result.seats(), entry->second->seats())) {
      problems.emplace_back(absl::StrCat(
          match, ": seats: results.json says ", SeatsText(result.seats()),
          ", the schedule ", SeatsText(entry->second->seats())));
    }
    if (const auto log = counted.find(result.index()); log != counted.end()) {
      CheckCountedResult(result, log->second, match, problems);
    } else if (IsGenuine(result)) {
      problems.emplace_back(absl::StrCat(
          match,
          ": results.json counts it (verdict \"genuine\"), but it has "
          "no sealed, included log that counts"));
    }
  }
  for (const auto& [index, log] : counted) {
    if (!seen.contains(index)) {
      problems.emplace_back(absl::StrCat(
          "results.json: match ", index, ": no result, but its log ",
          PrintableText(log.log_file), " is genuine, sealed and included"));
    }
  }
}

// The counts of matches: scheduled, verified, skipped.
void CheckCounts(const v1::TournamentResults& results,
                 const v1::TournamentSchedule& schedule,
                 const std::map<uint32_t, CountedMatch>& counted,
                 Problems& problems) {
  const uint64_t scheduled = schedule.matches_size();
  if (results.scheduled() != scheduled) {
    problems.emplace_back(
        absl::StrCat("results.json: scheduled: ",
                     Says<uint64_t>(results.scheduled(), scheduled),
                     " (schedule.json's matches)"));
  }
  if (results.verified() != counted.size()) {
    problems.emplace_back(
        absl::StrCat("results.json: verified: ",
                     Says<uint64_t>(results.verified(), counted.size()),
                     " (matches with a genuine, sealed, included log)"));
  }
  uint64_t skipped = 0;
  for (const v1::ScheduleEntry& entry : schedule.matches()) {
    skipped += entry.skipped();
  }
  if (results.skipped() != skipped) {
    problems.emplace_back(absl::StrCat(
        "results.json: skipped: ", Says<uint64_t>(results.skipped(), skipped),
        " (schedule.json's matches marked skipped)"));
  }
}

// The results the runner counts (genuine), as it builds them, by index.
std::vector<v1::TournamentMatchResult> GenuineResults(
    const v1::TournamentSchedule& schedule,
    const std::map<uint32_t, CountedMatch>& counted) {
  const std::map<uint32_t, const v1::ScheduleEntry*> entries =
      ByIndex(schedule);
  std::vector<v1::TournamentMatchResult> results;
  for (const auto& [index, log] : counted) {
    const auto entry = entries.find(index);
    if (entry == entries.end()) continue;  // Not a counted log then.
    v1::TournamentMatchResult& result = results.emplace_back();
    result.set_index(index);
    result.set_match_id(log.match_id);
    *result.mutable_seats() = entry->second->seats();
    *result.mutable_outcome() = log.outcome;
    result.set_log_file(log.log_file);
    result.set_verdict(kGenuineVerdict);
    result.set_moves(log.moves);
  }
  return results;
}

// The bots of the standings: `tournament`'s, else the schedule's (in the
// order they first play) and then any other results.json lists.
std::vector<std::string> BotsOf(const v1::TournamentResults& results,
                                const v1::TournamentSchedule& schedule,
                                const v1::Tournament* tournament) {
  std::vector<std::string> bots;
  if (tournament != nullptr) {
    for (const v1::TournamentBot& bot : tournament->bots()) {
      bots.push_back(bot.name());
    }
    return bots;
  }
  std::set<std::string> named;
  auto add = [&](const std::string& bot) {
    if (named.insert(bot).second) bots.push_back(bot);
  };
  for (const v1::ScheduleEntry& entry : schedule.matches()) {
    for (const std::string& bot : entry.seats()) add(bot);
  }
  for (const v1::TournamentStanding& s : results.standings()) add(s.bot());
  return bots;
}

// One standing of results.json (`claimed`, at `place`, 1 the first)
// against the recomputed one, of the same bot.
void CheckStanding(const v1::TournamentStanding& claimed,
                   const v1::TournamentStanding& recomputed, int place,
                   bool rated, Problems& problems) {
  const std::string at = absl::StrCat("results.json: standing ", place, " (",
                                      QuotedHostText(claimed.bot()), "): ");
  auto count = [&](const char* field, uint32_t a, uint32_t b) {
    if (a != b)
      problems.emplace_back(absl::StrCat(at, field, ": ", Says(a, b)));
  };
  auto real = [&](const char* field, double a, double b, bool close) {
    if (!close)
      problems.emplace_back(absl::StrCat(at, field, ": ", Says(a, b)));
  };
  count("matches", claimed.matches(), recomputed.matches());
  real("points", claimed.points(), recomputed.points(),
       RelativelyClose(claimed.points(), recomputed.points()));
  count("firsts", claimed.firsts(), recomputed.firsts());
  count("forfeits", claimed.forfeits(), recomputed.forfeits());
  real("mean_rank", claimed.mean_rank(), recomputed.mean_rank(),
       RelativelyClose(claimed.mean_rank(), recomputed.mean_rank()));
  if (!rated) return;
  real("rating", claimed.rating(), recomputed.rating(),
       RatingClose(claimed.rating(), recomputed.rating()));
  real("rating_low", claimed.rating_low(), recomputed.rating_low(),
       RatingClose(claimed.rating_low(), recomputed.rating_low()));
  real("rating_high", claimed.rating_high(), recomputed.rating_high(),
       RatingClose(claimed.rating_high(), recomputed.rating_high()));
}

// The bots that play the counted matches: those of `bots` in its order,
// then any other in the order of the results (the order in which
// ApplyRatings indexes them).
std::vector<std::string> PlayingBots(
    const std::vector<std::string>& bots,
    const std::vector<v1::TournamentMatchResult>& genuine) {
  std::set<std::string> playing;
  for (const v1::TournamentMatchResult& result : genuine) {
    for (const std::string& bot : result.seats()) playing.insert(bot);
  }
  std::vector<std::string> ordered;
  std::set<std::string> listed;
  for (const std::string& bot : bots) {
    if (playing.contains(bot) && listed.insert(bot).second) {
      ordered.push_back(bot);
    }
  }
  for (const v1::TournamentMatchResult& result : genuine) {
    for (const std::string& bot : result.seats()) {
      if (listed.insert(bot).second) ordered.push_back(bot);
    }
  }
  return ordered;
}

// Rates `standings` as ApplyRatings(bots, genuine, seats, standings) does,
// fitting only the bots that play (FitBradleyTerry gives the others rating
// 0 and infinite bounds, and them the same ratings as among all): false,
// the ratings left unset, when more than kMaxRatedBots play. Returns the
// model's name in `model`.
bool Rate(const std::vector<std::string>& bots,
          const std::vector<v1::TournamentMatchResult>& genuine, int seats,
          std::vector<v1::TournamentStanding>& standings, std::string& model,
          Problems& problems) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  std::vector<v1::TournamentStanding> none;
  model = ApplyRatings({}, {}, seats, none);  // The name only.
  const std::vector<std::string> playing = PlayingBots(bots, genuine);
  if (playing.size() > kMaxRatedBots) {
    problems.emplace_back(absl::StrCat(
        "results.json: ratings not checked: ", playing.size(),
        " bots play counted matches, more than the ", kMaxRatedBots,
        " rated here (the fit's time is cubic in their number)"));
    return false;
  }
  std::vector<v1::TournamentStanding> rated(playing.size());
  for (size_t i = 0; i < playing.size(); ++i) rated[i].set_bot(playing[i]);
  ApplyRatings(playing, genuine, seats, rated);
  std::map<std::string, const v1::TournamentStanding*> by_bot;
  for (const v1::TournamentStanding& s : rated) by_bot[s.bot()] = &s;
  for (v1::TournamentStanding& s : standings) {
    if (const auto it = by_bot.find(s.bot()); it != by_bot.end()) {
      s.set_rating(it->second->rating());
      s.set_rating_low(it->second->rating_low());
      s.set_rating_high(it->second->rating_high());
    } else {
      s.set_rating(0);
      s.set_rating_low(-kInfinity);
      s.set_rating_high(kInfinity);
    }
  }
  return true;
}

// The standings and the rating model, recomputed as the runner computes
// them (Runner::Report) and compared place by place.
void CheckStandings(const v1::TournamentResults& results,
                    const v1::TournamentSchedule& schedule,
                    const std::vector<v1::TournamentMatchResult>& genuine,
                    const v1::Tournament* tournament, Problems& problems) {
  const std::vector<std::string> bots = BotsOf(results, schedule, tournament);
  const v1::TournamentFormat format =
      tournament != nullptr ? tournament->format() : results.format();
  std::vector<v1::TournamentStanding> standings =
      ComputeStandings(bots, genuine, StandingsOrderOf(format));
  const int seats = !schedule.matches().empty()
                        ? schedule.matches(0).seats_size()
                    : tournament != nullptr ? tournament->seats()
                                            : 0;
  std::string model;
  const bool rated = Rate(bots, genuine, seats, standings, model, problems);
  if (results.rating_model() != model) {
    problems.emplace_back(absl::StrCat(
        "results.json: rating_model: results.json says ",
        QuotedHostText(results.rating_model()), ", the logs \"", model, "\""));
  }
  const size_t recomputed = standings.size();
  const size_t claimed_size = results.standings_size();
  if (claimed_size > recomputed) {
    problems.emplace_back(absl::StrCat(
        "results.json: ", claimed_size, " standings, but the logs give ",
        recomputed, " (one per bot); the first ", recomputed, " are compared"));
  }
  for (size_t i = 0; i < recomputed; ++i) {
    const size_t place = i + 1;
    if (i >= claimed_size) {
      problems.emplace_back(absl::StrCat("results.json: standing ", place,
                                         ": missing; the logs give ",
                                         QuotedHostText(standings[i].bot())));
      continue;
    }
    const v1::TournamentStanding& claimed = results.standings(i);
    if (claimed.bot() != standings[i].bot()) {
      problems.emplace_back(
          absl::StrCat("results.json: standing ", place, ": results.json says ",
                       QuotedHostText(claimed.bot()), ", the logs ",
                       QuotedHostText(standings[i].bot())));
      continue;
    }
    CheckStanding(claimed, standings[i], static_cast<int>(place), rated,
                  problems);
  }
}

// The SPRT of results.json against the tournament's, on the counted
// matches (Runner::Count: bot 0 is the tournament's first bot).
void CheckSprt(const v1::TournamentResults& results,
               const v1::TournamentSchedule& schedule,
               const std::vector<v1::TournamentMatchResult>& genuine,
               const v1::Tournament& tournament, Problems& problems) {
  if (!tournament.has_sprt()) {
    if (results.has_sprt()) {
      problems.emplace_back(
          "results.json: has an SPRT, but the tournament (tournament.txt) "
          "has none");
    }
    return;
  }
  if (!results.has_sprt()) {
    problems.emplace_back(
        "results.json: has no SPRT, but the tournament (tournament.txt) has "
        "one");
    return;
  }
  if (absl::Status s = ValidateSprt(tournament.sprt()); !s.ok()) {
    problems.emplace_back(
        absl::StrCat("results.json: its SPRT is not checked: the tournament's "
                     "(tournament.txt) cannot run: ",
                     s.message()));
    return;
  }
  const std::string first =
      tournament.bots().empty() ? "" : tournament.bots(0).name();
  int wins = 0, draws = 0, losses = 0;
  for (const v1::TournamentMatchResult& result : genuine) {
    if (result.seats_size() != 2 || result.outcome().seats_size() != 2) {
      continue;  // Not an SPRT's match: ValidateSprt's tournament has none.
    }
    const int mine_at = result.seats(0) == first ? 0 : 1;
    const uint32_t mine = result.outcome().seats(mine_at).rank();
    const uint32_t theirs = result.outcome().seats(1 - mine_at).rank();
    ++(mine < theirs ? wins : mine == theirs ? draws : losses);
  }
  const v1::SprtOutcome expected =
      EvaluateSprt(tournament.sprt(), wins, draws, losses);
  const v1::SprtOutcome& claimed = results.sprt();
  auto count = [&](const char* field, uint32_t a, uint32_t b) {
    if (a != b) {
      problems.emplace_back(
          absl::StrCat("results.json: sprt.", field, ": ", Says(a, b)));
    }
  };
  auto real = [&](const char* field, double a, double b, bool close) {
    if (!close) {
      problems.emplace_back(
          absl::StrCat("results.json: sprt.", field, ": ", Says(a, b)));
    }
  };
  count("wins", claimed.wins(), expected.wins());
  count("draws", claimed.draws(), expected.draws());
  count("losses", claimed.losses(), expected.losses());
  real("llr", claimed.llr(), expected.llr(),
       RatingClose(claimed.llr(), expected.llr()));
  real("lower_bound", claimed.lower_bound(), expected.lower_bound(),
       RelativelyClose(claimed.lower_bound(), expected.lower_bound()));
  real("upper_bound", claimed.upper_bound(), expected.upper_bound(),
       RelativelyClose(claimed.upper_bound(), expected.upper_bound()));
  real("elo", claimed.elo(), expected.elo(),
       RatingClose(claimed.elo(), expected.elo()));
  real("elo_low", claimed.elo_low(), expected.elo_low(),
       RatingClose(claimed.elo_low(), expected.elo_low()));
  real("elo_high", claimed.elo_high(), expected.elo_high(),
       RatingClose(claimed.elo_high(), expected.elo_high()));
  const std::string& decision = claimed.decision();
  if (decision != "H0" && decision != "H1" && decision != "inconclusive") {
    problems.emplace_back(
        absl::StrCat("results.json: sprt.decision: ", QuotedHostText(decision),
                     " is none of \"H0\", \"H1\" and \"inconclusive\""));
    return;
  }
  if (decision == "H0" || decision == "H1") {
    // Some order of the counted results must bring the running ratio to
    // the bound: its extremes over the sub-counts.
    const SprtRatioRange range =
        SprtReachableRatios(tournament.sprt().elo0(), tournament.sprt().elo1(),
                            wins, draws, losses);
    const bool h1 = decision == "H1";
    const double bound = h1 ? expected.upper_bound() : expected.lower_bound();
    const double reach = h1 ? range.highest : range.lowest;
    const bool reached = h1 ? reach >= bound - kRatingTolerance
                            : reach <= bound + kRatingTolerance;
    if (!reached) {
      problems.emplace_back(
          absl::StrCat("results.json: sprt.decision: \"", decision,
                       "\", but no order of "
                       "the logs' results (",
                       wins, " wins, ", draws, " draws, ", losses,
                       " losses) brings the ratio to its ",
                       h1 ? "upper" : "lower", " bound, ", bound,
                       ": it reaches ", h1 ? "at most " : "at least ", reach));
    }
    return;
  }
  const bool skipped =
      std::any_of(schedule.matches().begin(), schedule.matches().end(),
                  [](const v1::ScheduleEntry& e) { return e.skipped(); });
  if (skipped) {
    problems.emplace_back(
        "results.json: sprt.decision: \"inconclusive\", but the schedule "
        "marks matches skipped, which the runner does only once the SPRT "
        "has decided");
  } else if (expected.decision() != "inconclusive") {
    problems.emplace_back(absl::StrCat(
        "results.json: sprt.decision: \"inconclusive\", but the ratio of "
        "the logs, ",
        expected.llr(), ", is at a bound (", expected.decision(),
        "): the runner decides when it first is"));
  }
}

}  // namespace

CountedMatch CountedMatchOf(const Verdict& verdict, std::string log_file) {
  return CountedMatch{.match_id = ToHex(verdict.header.match_id()),
                      .outcome = verdict.outcome,
                      .log_file = std::move(log_file),
                      .moves = verdict.moves};
}

std::vector<std::string> CheckResults(
    const v1::TournamentResults& results,
    const v1::TournamentSchedule& schedule,
    const std::map<uint32_t, CountedMatch>& counted,
    const v1::Tournament* tournament, uint64_t* unlisted) {
  Problems problems;
  if (results.name() != schedule.name()) {
    problems.emplace_back(absl::StrCat("results.json: name: results.json says ",
                                       QuotedHostText(results.name()),
                                       ", the schedule ",
                                       QuotedHostText(schedule.name())));
  }
  if (results.game().game() != schedule.game()) {
    problems.emplace_back(absl::StrCat("results.json: game: results.json says ",
                                       QuotedHostText(results.game().game()),
                                       ", the schedule ",
                                       QuotedHostText(schedule.game())));
  }
  if (tournament != nullptr && results.format() != tournament->format()) {
    problems.emplace_back(
        absl::StrCat("results.json: format: results.json says ",
                     v1::TournamentFormat_Name(results.format()),
                     ", the tournament (tournament.txt) ",
                     v1::TournamentFormat_Name(tournament->format())));
  }
  CheckMatches(results, schedule, counted, problems);
  CheckCounts(results, schedule, counted, problems);
  const std::vector<v1::TournamentMatchResult> genuine =
      GenuineResults(schedule, counted);
  CheckStandings(results, schedule, genuine, tournament, problems);
  if (tournament != nullptr) {
    CheckSprt(results, schedule, genuine, *tournament, problems);
  }
  return std::move(problems).Lines(unlisted);
}

std::string QuotedHostText(std::string_view text) {
  if (text.size() <= kMaxQuotedBytes) return QuotedText(text);
  size_t cut = kMaxQuotedBytes;
  // Back to a character's start (at most 3 continuation bytes).
  for (int i = 0; i < 3 && cut > 0 && (text[cut] & 0xC0) == 0x80; ++i) --cut;
  return absl::StrCat(QuotedText(text.substr(0, cut)), "...(", text.size(),
                      " bytes)");
}

std::string QuotedSeatList(
    const google::protobuf::RepeatedPtrField<std::string>& seats) {
  return SeatListOf(seats);
}

std::string QuotedSeatList(const std::vector<std::string>& seats) {
  return SeatListOf(seats);
}

}  // namespace pyramid
