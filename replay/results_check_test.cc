#include "replay/results_check.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tools/tournament/match_verdict.h"
#include "tools/tournament/ratings.h"
#include "tools/tournament/sprt.h"
#include "tools/tournament/standings.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A tournament, its schedule and the runner's results of it, with the
// logs that count.
struct Played {
  v1::Tournament tournament;
  v1::TournamentSchedule schedule;
  std::vector<v1::TournamentMatchResult> matches;  // As the runner's.
  std::map<uint32_t, CountedMatch> counted;
  std::string sprt_decision;  // Once decided, as the runner took it.
};

v1::Tournament TournamentOf(const std::string& name, int seats,
                            const std::vector<std::string>& bots) {
  v1::Tournament t;
  t.set_name(name);
  t.mutable_game()->set_game("rock_paper_pyramid");
  t.set_seats(seats);
  t.set_format(v1::ROUND_ROBIN);
  for (const std::string& bot : bots) t.add_bots()->set_name(bot);
  return t;
}

void Schedule(Played& p, const std::vector<std::string>& seats,
              bool skipped = false) {
  p.schedule.set_name(p.tournament.name());
  p.schedule.set_game(p.tournament.game().game());
  p.schedule.set_run_id("run");
  v1::ScheduleEntry* entry = p.schedule.add_matches();
  entry->set_index(p.schedule.matches_size() - 1);
  entry->set_label(absl::StrCat(p.tournament.name(), "/run/", entry->index()));
  for (const std::string& bot : seats) entry->add_seats(bot);
  entry->set_skipped(skipped);
}

// Match `index` played with `ranks` (forfeited seats among them), its log
// counted; or, `verdict` not genuine, a result the runner keeps uncounted.
void Play(Played& p, uint32_t index, const std::vector<uint32_t>& ranks,
          const std::vector<int>& forfeited = {},
          const std::string& verdict = kGenuineVerdict) {
  v1::TournamentMatchResult result;
  result.set_index(index);
  result.set_match_id(absl::StrCat("00ab", index));
  *result.mutable_seats() = p.schedule.matches(index).seats();
  result.set_verdict(verdict);
  if (IsGenuine(result)) {
    v1::Outcome& outcome = *result.mutable_outcome();
    outcome.set_termination(forfeited.empty() ? v1::TERMINATION_NORMAL
                                              : v1::TERMINATION_FORFEIT);
    for (uint32_t rank : ranks) {
      v1::SeatOutcome* seat = outcome.add_seats();
      seat->set_rank(rank);
      seat->set_score(10 - rank);
    }
    for (int seat : forfeited) outcome.mutable_seats(seat)->set_forfeited(true);
    result.set_log_file(absl::StrCat("logs/m", index, ".pyrlog"));
    result.set_moves(7 * index + 3);
    p.counted[index] = CountedMatch{.match_id = result.match_id(),
                                    .outcome = result.outcome(),
                                    .log_file = result.log_file(),
                                    .moves = result.moves()};
  }
  p.matches.push_back(std::move(result));
}

// What Runner::Report writes (tools/tournament/runner_report.cc), made
// with the same functions; the bots' restarts, which no log shows, set.
v1::TournamentResults RunnerResults(const Played& p) {
  const v1::Tournament& t = p.tournament;
  std::vector<std::string> names;
  for (const v1::TournamentBot& bot : t.bots()) names.push_back(bot.name());
  v1::TournamentResults results;
  results.set_name(t.name());
  *results.mutable_game() = t.game();
  results.set_format(t.format());
  results.set_scheduled(p.schedule.matches_size());
  uint32_t verified = 0;
  for (const auto& r : p.matches) verified += IsGenuine(r);
  results.set_verified(verified);
  if (!p.sprt_decision.empty()) {
    results.set_skipped(p.schedule.matches_size() - p.matches.size());
  }
  std::vector<v1::TournamentStanding> standings =
      ComputeStandings(names, p.matches, StandingsOrderOf(t.format()));
  for (auto& s : standings) s.set_restarts(s.bot().size());
  results.set_rating_model(
      ApplyRatings(names, p.matches, t.seats(), standings));
  for (auto& s : standings) *results.add_standings() = std::move(s);
  if (t.has_sprt()) {
    int wins = 0, draws = 0, losses = 0;
    for (const auto& r : p.matches) {
      if (!IsGenuine(r)) continue;
      const int first = r.seats(0) == names[0] ? 0 : 1;
      const uint32_t mine = r.outcome().seats(first).rank();
      const uint32_t theirs = r.outcome().seats(1 - first).rank();
      ++(mine < theirs ? wins : mine == theirs ? draws : losses);
    }
    *results.mutable_sprt() = EvaluateSprt(t.sprt(), wins, draws, losses);
    if (!p.sprt_decision.empty()) {
      results.mutable_sprt()->set_decision(p.sprt_decision);
    }
  }
  for (const auto& r : p.matches) *results.add_matches() = r;
  // Through results.json and back, as an auditor reads it.
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  EXPECT_TRUE(
      google::protobuf::util::MessageToJsonString(results, &json, options)
          .ok());
  v1::TournamentResults read;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &read).ok());
  return read;
}

// Three bots, two seats: a win, a draw, a forfeit, a match not played.
Played TwoSeats() {
  Played p;
  p.tournament = TournamentOf("rr2", 2, {"alpha", "beta", "gamma"});
  Schedule(p, {"alpha", "beta"});
  Schedule(p, {"beta", "alpha"});
  Schedule(p, {"alpha", "gamma"});
  Schedule(p, {"gamma", "alpha"});
  Schedule(p, {"beta", "gamma"});
  Schedule(p, {"gamma", "beta"});
  Play(p, 0, {1, 2});
  Play(p, 1, {1, 1});
  Play(p, 2, {1, 2}, /*forfeited=*/{1});
  Play(p, 3, {1, 2});
  Play(p, 4, {}, {}, "not played: the referee is unavailable");
  Play(p, 5, {2, 1});
  return p;
}

// Four bots, three seats, shared ranks and a forfeit.
Played ThreeSeats() {
  Played p;
  p.tournament = TournamentOf("rr3", 3, {"a", "b", "c", "d"});
  Schedule(p, {"a", "b", "c"});
  Schedule(p, {"b", "c", "d"});
  Schedule(p, {"c", "d", "a"});
  Schedule(p, {"d", "a", "b"});
  Play(p, 0, {1, 2, 3});
  Play(p, 1, {1, 1, 3});
  Play(p, 2, {2, 1, 3}, /*forfeited=*/{2});
  Play(p, 3, {1, 2, 2});
  return p;
}

// Two bots under an SPRT [elo0, elo1], "new" scoring `pattern` (W, D, L,
// repeated) until the test decides, as the runner's Count does; then two
// more matches scheduled, skipped. With `decide` false, the pattern is
// played once and nothing is skipped, whatever the ratio did.
Played Sprt(double elo0 = 0, double elo1 = 200,
            const std::string& pattern = "WWDWLW", bool decide = true) {
  Played p;
  p.tournament = TournamentOf("sprt", 2, {"new", "old"});
  p.tournament.mutable_sprt()->set_elo0(elo0);
  p.tournament.mutable_sprt()->set_elo1(elo1);
  int wins = 0, draws = 0, losses = 0;
  for (uint32_t i = 0; i < (decide ? 1000 : pattern.size()); ++i) {
    const bool first = i % 2 == 0;  // "new" in seat 0.
    Schedule(p, first ? std::vector<std::string>{"new", "old"}
                      : std::vector<std::string>{"old", "new"});
    const char c = pattern[i % pattern.size()];
    const uint32_t mine = c == 'W' ? 1 : c == 'D' ? 1 : 2;
    const uint32_t theirs = c == 'W' ? 2 : c == 'D' ? 1 : 1;
    Play(p, i,
         first ? std::vector<uint32_t>{mine, theirs}
               : std::vector<uint32_t>{theirs, mine});
    ++(c == 'W' ? wins : c == 'D' ? draws : losses);
    if (!decide) continue;
    const std::string decision =
        EvaluateSprt(p.tournament.sprt(), wins, draws, losses).decision();
    if (decision != "inconclusive") {
      p.sprt_decision = decision;
      break;
    }
  }
  if (decide) {
    EXPECT_FALSE(p.sprt_decision.empty());
    Schedule(p, {"new", "old"}, /*skipped=*/true);
    Schedule(p, {"old", "new"}, /*skipped=*/true);
  }
  return p;
}

std::vector<std::string> Check(const Played& p,
                               const v1::TournamentResults& results,
                               bool with_tournament = true) {
  return CheckResults(results, p.schedule, p.counted,
                      with_tournament ? &p.tournament : nullptr);
}

TEST(ResultsCheckTest, TheRunnersResultsPass) {
  for (const Played& p :
       {TwoSeats(), ThreeSeats(), Sprt(), Sprt(0, 200, "LLDLWL")}) {
    const v1::TournamentResults results = RunnerResults(p);
    EXPECT_THAT(Check(p, results), IsEmpty()) << p.tournament.name();
    EXPECT_THAT(Check(p, results, /*with_tournament=*/false), IsEmpty())
        << p.tournament.name();
  }
  EXPECT_EQ(RunnerResults(ThreeSeats()).rating_model(),
            "bradley_terry_pairwise");
  EXPECT_EQ(RunnerResults(Sprt()).sprt().decision(), "H1");
  EXPECT_EQ(RunnerResults(Sprt(0, 200, "LLDLWL")).sprt().decision(), "H0");
}

// A bot of the tournament that never played: the runner rates it 0 with
// infinite bounds, and so does the check, which fits only the bots that
// play.
TEST(ResultsCheckTest, ABotThatNeverPlayedPasses) {
  Played p = TwoSeats();
  p.tournament.add_bots()->set_name("idle");
  const v1::TournamentResults results = RunnerResults(p);
  const v1::TournamentStanding& idle =
      results.standings(results.standings_size() - 1);
  ASSERT_EQ(idle.bot(), "idle");
  EXPECT_EQ(idle.rating(), 0);
  EXPECT_EQ(idle.rating_low(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(idle.rating_high(), std::numeric_limits<double>::infinity());
  EXPECT_THAT(Check(p, results), IsEmpty());
  EXPECT_THAT(Check(p, results, /*with_tournament=*/false), IsEmpty());
}

TEST(ResultsCheckTest, SwappedStandingsAreNamed) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  results.mutable_standings()->SwapElements(0, 1);
  const v1::TournamentResults runner = RunnerResults(p);
  EXPECT_THAT(
      Check(p, results),
      ElementsAre(absl::StrCat("results.json: standing 1: results.json says \"",
                               runner.standings(1).bot(), "\", the logs \"",
                               runner.standings(0).bot(), "\""),
                  absl::StrCat("results.json: standing 2: results.json says \"",
                               runner.standings(0).bot(), "\", the logs \"",
                               runner.standings(1).bot(), "\"")));
}

TEST(ResultsCheckTest, AChangedPointsValueIsNamed) {
  const Played p = ThreeSeats();
  v1::TournamentResults results = RunnerResults(p);
  v1::TournamentStanding& first = *results.mutable_standings(0);
  const double points = first.points();
  first.set_points(points + 0.5);
  EXPECT_THAT(
      Check(p, results),
      ElementsAre(absl::StrCat("results.json: standing 1 (\"", first.bot(),
                               "\"): points: "
                               "results.json says ",
                               points + 0.5, ", the logs ", points)));
  // Within the tolerance: another compiler's last bits.
  first.set_points(points * (1 + 1e-12));
  EXPECT_THAT(Check(p, results), IsEmpty());
}

TEST(ResultsCheckTest, ChangedRanksAreNamedWithTheirStandings) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  v1::Outcome& outcome = *results.mutable_matches(0)->mutable_outcome();
  outcome.mutable_seats(0)->set_rank(2);
  outcome.mutable_seats(1)->set_rank(1);
  const std::vector<std::string> problems = Check(p, results);
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0],
            "results.json: match 0: outcome: results.json says "
            "TERMINATION_NORMAL: rank 2 (score 9), rank 1 (score 8); its log "
            "logs/m0.pyrlog TERMINATION_NORMAL: rank 1 (score 9), rank 2 "
            "(score 8)");
  // The standings the host would compute from it are not the logs'.
  Played forged = p;
  forged.matches[0].mutable_outcome()->mutable_seats(0)->set_rank(2);
  forged.matches[0].mutable_outcome()->mutable_seats(1)->set_rank(1);
  const v1::TournamentResults consistent = RunnerResults(forged);
  // (alpha's win turned into beta's: beta leads, gamma's rating moves).
  EXPECT_THAT(Check(p, consistent),
              testing::IsSupersetOf(
                  {problems[0],
                   std::string("results.json: standing 1: results.json says "
                               "\"beta\", the logs \"alpha\""),
                   std::string("results.json: standing 2: results.json says "
                               "\"alpha\", the logs \"beta\"")}));
}

TEST(ResultsCheckTest, AChangedMatchIdIsNamed) {
  const Played p = ThreeSeats();
  v1::TournamentResults results = RunnerResults(p);
  results.mutable_matches(2)->set_match_id("ffff");
  EXPECT_THAT(Check(p, results),
              ElementsAre("results.json: match 2: match id: results.json says "
                          "\"ffff\", its log logs/m2.pyrlog 00ab2"));
}

TEST(ResultsCheckTest, ARemovedResultIsNamed) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  results.mutable_matches()->DeleteSubrange(3, 1);
  EXPECT_THAT(Check(p, results),
              ElementsAre("results.json: match 3: no result, but its log "
                          "logs/m3.pyrlog is genuine, sealed and included"));
}

TEST(ResultsCheckTest, AnExtraResultIsNamed) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  // Match 4 was not played: made genuine, it has no log that counts.
  results.mutable_matches(4)->set_verdict(kGenuineVerdict);
  // Match 5's result made that of a match not in the schedule at all.
  results.mutable_matches(5)->set_index(9);
  EXPECT_THAT(
      Check(p, results),
      ElementsAre("results.json: match 4: results.json counts it (verdict "
                  "\"genuine\"), but it has no sealed, included log that "
                  "counts",
                  "results.json: match 9: not in the schedule",
                  "results.json: match 5: no result, but its log "
                  "logs/m5.pyrlog is genuine, sealed and included"));
}

TEST(ResultsCheckTest, AResultListedTwiceIsNamed) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  // Match 4 (not played, so its result may be left out) gives way to a
  // second copy of match 5's.
  results.mutable_matches()->DeleteSubrange(4, 1);
  *results.add_matches() = results.matches(4);
  EXPECT_THAT(Check(p, results),
              ElementsAre("results.json: match 5: listed more than once"));
}

// More results than the schedule has matches: one problem, whatever their
// number, not one per result.
TEST(ResultsCheckTest, MoreResultsThanMatchesIsOneProblem) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  for (int i = 0; i < 100000; ++i) results.add_matches();
  EXPECT_THAT(Check(p, results),
              ElementsAre("results.json: 100006 results, more than the "
                          "schedule's 6 matches (a result is of a scheduled "
                          "match, listed once); the results are not checked "
                          "one by one"));
}

// However many problems, at most kMaxProblems lines and one that counts
// the others.
TEST(ResultsCheckTest, ProblemsAreCapped) {
  Played p = TwoSeats();
  for (int i = 0; i < 3000; ++i) Schedule(p, {"alpha", "beta"});
  v1::TournamentResults results = RunnerResults(p);
  results.set_scheduled(p.schedule.matches_size());
  for (int i = 0; i < 3000; ++i) {
    v1::TournamentMatchResult* extra = results.add_matches();
    extra->set_index(100000 + i);  // Not scheduled.
  }
  const std::vector<std::string> problems = Check(p, results);
  ASSERT_EQ(problems.size(), kMaxProblems + 1);
  EXPECT_EQ(problems[0], "results.json: match 100000: not in the schedule");
  EXPECT_EQ(
      problems.back(),
      absl::StrCat("results.json: and ", 3000 - kMaxProblems,
                   " more problems (the first ", kMaxProblems, " are listed)"));
  // Or counted apart, for a caller that counts problems.
  uint64_t unlisted = 1;
  EXPECT_EQ(
      CheckResults(results, p.schedule, p.counted, &p.tournament, &unlisted)
          .size(),
      kMaxProblems);
  EXPECT_EQ(unlisted, 3000 - kMaxProblems);
  unlisted = 1;
  EXPECT_THAT(CheckResults(RunnerResults(p), p.schedule, p.counted,
                           &p.tournament, &unlisted),
              IsEmpty());
  EXPECT_EQ(unlisted, 0);
}

// 30,000 invented bots in the standings: none of them plays, none is
// rated (the runner's fit of every bot given would take 21 GB): the check
// ends, with a bounded number of problems.
TEST(ResultsCheckTest, InventedBotsAreNotRated) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  for (int i = 0; i < 30000; ++i) {
    results.add_standings()->set_bot(absl::StrCat("x", i));
  }
  // With the tournament: more standings than its bots, one problem.
  EXPECT_THAT(Check(p, results),
              ElementsAre("results.json: 30003 standings, but the logs give 3 "
                          "(one per bot); the first 3 are compared"));
  // Without it, the standings' bots are bots: each an idle bot's standing
  // (zeros, rating 0 within infinite bounds), in place, passes.
  const std::vector<std::string> unsorted =
      Check(p, results, /*with_tournament=*/false);
  EXPECT_FALSE(unsorted.empty());
  EXPECT_LE(unsorted.size(), kMaxProblems + 1);
  std::vector<std::string> idle;
  for (int i = 0; i < 30000; ++i) idle.push_back(absl::StrCat("x", i));
  std::sort(idle.begin(), idle.end());  // After the others, by name.
  results.mutable_standings()->DeleteSubrange(3, 30000);
  for (const std::string& bot : idle) {
    v1::TournamentStanding& s = *results.add_standings();
    s.set_bot(bot);
    s.set_restarts(bot.size());
    s.set_rating_low(-std::numeric_limits<double>::infinity());
    s.set_rating_high(std::numeric_limits<double>::infinity());
  }
  EXPECT_THAT(Check(p, results, /*with_tournament=*/false), IsEmpty());
}

// More bots playing counted matches than are rated here: the ratings are
// not checked (one problem), the rest is.
TEST(ResultsCheckTest, TooManyPlayingBotsLeaveRatingsUnchecked) {
  Played p;
  std::vector<std::string> bots;
  const int pairs = kMaxRatedBots / 2 + 1;
  for (int i = 0; i < 2 * pairs; ++i) bots.push_back(absl::StrCat("b", i));
  p.tournament = TournamentOf("many", 2, bots);
  for (int i = 0; i < pairs; ++i) {
    Schedule(p, {bots[2 * i], bots[2 * i + 1]});
    Play(p, i, {1, 2});
  }
  v1::TournamentResults results = RunnerResults(p);
  results.mutable_standings(0)->set_rating(12345);  // Not seen.
  EXPECT_THAT(Check(p, results),
              ElementsAre(absl::StrCat(
                  "results.json: ratings not checked: ", 2 * pairs,
                  " bots play counted matches, more than the ", kMaxRatedBots,
                  " rated here (the fit's time is cubic in their number)")));
  results.mutable_standings(0)->set_points(7);  // Seen.
  EXPECT_THAT(Check(p, results), testing::Contains(HasSubstr("points")));
}

// A host's long text is quoted cut, with its length.
TEST(ResultsCheckTest, LongHostTextIsCut) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  const std::string name(1000000, 'n');
  results.mutable_standings(0)->set_bot(name);
  results.mutable_matches(0)->set_match_id(name);
  const std::vector<std::string> problems = Check(p, results);
  ASSERT_EQ(problems.size(), 2);
  for (const std::string& problem : problems) {
    EXPECT_LT(problem.size(), 2 * kMaxQuotedBytes) << problem.substr(0, 80);
    EXPECT_THAT(problem,
                HasSubstr(absl::StrCat("\"", std::string(kMaxQuotedBytes, 'n'),
                                       "\"...(1000000 bytes)")));
  }
}

TEST(QuotedHostTextTest, CutsAtACharacter) {
  EXPECT_EQ(QuotedHostText("al\"ice"), "\"al\\\"ice\"");
  // 199 bytes, then a two-byte character across the cut.
  std::string text(kMaxQuotedBytes - 1, 'a');
  text.append("\xc3\xab!");  // U+00EB.
  EXPECT_EQ(QuotedHostText(text),
            absl::StrCat("\"", std::string(kMaxQuotedBytes - 1, 'a'), "\"...(",
                         text.size(), " bytes)"));
}

TEST(QuotedSeatListTest, ListsAtMostSomeSeats) {
  EXPECT_EQ(QuotedSeatList(std::vector<std::string>{"b3", "b1"}),
            "\"b3\", \"b1\"");
  std::vector<std::string> seats(kMaxListedSeats + 5, "s");
  const std::string list = QuotedSeatList(seats);
  EXPECT_THAT(list, testing::EndsWith(absl::StrCat(
                        "\"s\", ... (", kMaxListedSeats + 5, " seats)")));
  v1::ScheduleEntry entry;
  entry.add_seats("x");
  EXPECT_EQ(QuotedSeatList(entry.seats()), "\"x\"");
}

TEST(ResultsCheckTest, ACountedMatchMarkedNotGenuineIsNamed) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  results.mutable_matches(0)->set_verdict("not genuine at record 3: forged");
  EXPECT_THAT(Check(p, results),
              ElementsAre("results.json: match 0: its verdict is \"not "
                          "genuine at record 3: forged\", but its log "
                          "logs/m0.pyrlog is genuine, sealed and included: "
                          "the match counts"));
}

TEST(ResultsCheckTest, WrongCountsAreNamed) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  results.set_verified(6);
  results.set_scheduled(7);
  results.set_skipped(1);
  EXPECT_THAT(
      Check(p, results),
      ElementsAre("results.json: scheduled: results.json says 7, the logs 6 "
                  "(schedule.json's matches)",
                  "results.json: verified: results.json says 6, the logs 5 "
                  "(matches with a genuine, sealed, included log)",
                  "results.json: skipped: results.json says 1, the logs 0 "
                  "(schedule.json's matches marked skipped)"));
}

TEST(ResultsCheckTest, RatingsAndTheirModelAreChecked) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  results.mutable_standings(1)->set_rating(results.standings(1).rating() + 1);
  results.set_rating_model("elo");
  const std::vector<std::string> problems = Check(p, results);
  ASSERT_EQ(problems.size(), 2);
  EXPECT_EQ(problems[0],
            "results.json: rating_model: results.json says \"elo\", the logs "
            "\"bradley_terry\"");
  EXPECT_THAT(problems[1], HasSubstr("): rating: results.json says "));
}

TEST(ResultsCheckTest, TheSprtIsRecomputedWithTheTournament) {
  const Played p = Sprt();
  v1::TournamentResults results = RunnerResults(p);
  results.mutable_sprt()->set_wins(results.sprt().wins() + 1);
  results.mutable_sprt()->set_decision("inconclusive");
  EXPECT_THAT(
      Check(p, results),
      ElementsAre(absl::StrCat("results.json: sprt.wins: results.json says ",
                               results.sprt().wins(), ", the logs ",
                               results.sprt().wins() - 1),
                  HasSubstr("sprt.decision: \"inconclusive\", but the "
                            "schedule marks matches skipped")));
  // Without the tournament, its settings are not known: not checked.
  EXPECT_THAT(Check(p, results, /*with_tournament=*/false), IsEmpty());
  results.clear_sprt();
  EXPECT_THAT(Check(p, results),
              ElementsAre("results.json: has no SPRT, but the tournament "
                          "(tournament.txt) has one"));
}

TEST(ResultsCheckTest, TheFormatIsTheTournaments) {
  const Played p = TwoSeats();
  v1::TournamentResults results = RunnerResults(p);
  results.set_format(v1::SWISS);
  EXPECT_THAT(Check(p, results),
              ElementsAre("results.json: format: results.json says SWISS, the "
                          "tournament (tournament.txt) ROUND_ROBIN"));
}

// A decision no order of the counted results reaches is refused: "H1"
// on 15 wins and 25 losses under [0, 10] (out2 of the review: the final
// ratio -0.30, and no order of those brings it to 2.94).
TEST(ResultsCheckTest, AForgedSprtDecisionIsNamed) {
  const Played p =
      Sprt(0, 10, std::string(15, 'W') + std::string(25, 'L'), false);
  v1::TournamentResults results = RunnerResults(p);
  ASSERT_EQ(results.sprt().wins(), 15);
  ASSERT_EQ(results.sprt().losses(), 25);
  ASSERT_EQ(results.sprt().decision(), "inconclusive");
  EXPECT_THAT(Check(p, results), IsEmpty());
  for (const std::string forged : {"H1", "H0"}) {
    results.mutable_sprt()->set_decision(forged);
    const std::vector<std::string> problems = Check(p, results);
    ASSERT_EQ(problems.size(), 1) << forged;
    EXPECT_THAT(problems[0],
                testing::StartsWith(absl::StrCat(
                    "results.json: sprt.decision: \"", forged,
                    "\", but no order of the logs' results (15 wins, 0 draws, "
                    "25 losses) brings the ratio to its ",
                    forged == "H1" ? "upper bound, 2.94444: it reaches at most "
                                   : "lower bound, -2.94444: it reaches at "
                                     "least ")))
        << problems[0];
  }
}

// A decided test's decision turned over: refused when the other bound is
// out of reach.
TEST(ResultsCheckTest, AFlippedSprtDecisionIsNamed) {
  for (const auto& [pattern, decided] :
       {std::pair<std::string, std::string>{"LLDLWL", "H0"},
        {"WWWWLW", "H1"}}) {
    const Played p = Sprt(0, 200, pattern);
    v1::TournamentResults results = RunnerResults(p);
    ASSERT_EQ(results.sprt().decision(), decided);
    results.mutable_sprt()->set_decision(decided == "H0" ? "H1" : "H0");
    EXPECT_THAT(Check(p, results),
                ElementsAre(HasSubstr("but no order of the logs' results")))
        << pattern;
  }
}

TEST(ResultsCheckTest, CountedMatchOfAVerdict) {
  Verdict verdict;
  verdict.kind = Verdict::Kind::kGenuine;
  verdict.header.set_match_id(std::string("\x01\xab", 2));
  verdict.outcome.add_seats()->set_rank(1);
  verdict.moves = 12;
  const CountedMatch counted = CountedMatchOf(verdict, "logs/x.pyrlog");
  EXPECT_EQ(counted.match_id, "01ab");
  EXPECT_EQ(counted.outcome.seats(0).rank(), 1);
  EXPECT_EQ(counted.log_file, "logs/x.pyrlog");
  EXPECT_EQ(counted.moves, 12);
}

}  // namespace
}  // namespace pyramid
