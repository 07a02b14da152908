// Standings from verified match results, and their table.
#ifndef PYRAMID_TOOLS_TOURNAMENT_STANDINGS_H_
#define PYRAMID_TOOLS_TOURNAMENT_STANDINGS_H_

#include <string>
#include <vector>

#include "pyramid/referee/v1/tournament.pb.h"
#include "tools/tournament/match_verdict.h"

namespace pyramid {

// What ranks the standings first.
enum class StandingsOrder {
  // Points: every bot plays as many matches (round robin, gauntlet).
  kPoints,
  // Points per match played (score %): a Swiss tournament with an odd
  // number of bots gives a bye each round, so bots play different numbers
  // of matches, and raw points would rank a bot down for its byes.
  kPointsPerMatch,
};

// The points `seat` of `outcome` scores against the other seats: +1 per
// seat ranked below it, +0.5 per seat sharing its rank (what a Swiss round
// is paired by); 0 for a seat the outcome lacks.
double PairwisePoints(const referee::v1::Outcome& outcome, int seat);

// One standing per bot (in `bots` order's names), best first (by points,
// or points per match with kPointsPerMatch, then mean rank, then name;
// points, their ratios and mean ranks are compared exactly, so equal ones
// tie whatever the order of the matches; a bot without matches comes after
// every bot with some). Only genuine results (IsGenuine) count.
std::vector<referee::v1::TournamentStanding> ComputeStandings(
    const std::vector<std::string>& bots,
    const std::vector<referee::v1::TournamentMatchResult>& results,
    StandingsOrder order = StandingsOrder::kPoints);

// The order of `format`'s standings: kPointsPerMatch for Swiss, kPoints
// for the others.
StandingsOrder StandingsOrderOf(referee::v1::TournamentFormat format);

// "round robin" (also for UNSPECIFIED), "gauntlet" or "Swiss".
std::string FormatName(referee::v1::TournamentFormat format);

// The format's name and the order of its standings, in one line:
// "Round robin: ranked by points, then mean rank, then name", "Swiss:
// ranked by score % (points per match played: ...), then ...".
std::string StandingsOrderText(referee::v1::TournamentFormat format);

// A plain-text table of `standings`: place, bot, matches, points, score %,
// firsts, forfeits, restarts (of the bot's program, over every run), rating and
// its 95% interval.
std::string FormatStandings(
    const std::vector<referee::v1::TournamentStanding>& standings);

// `value` with `decimals` decimals (and its sign, + or -, when `sign`),
// never a negative zero: a value that rounds to zero, however small its
// negative part (a fitted rating of -5.8e-14), shows as 0 ("+0" with
// `sign`), never "-0" or "-0.0".
std::string FixedText(double value, int decimals, bool sign = false);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_STANDINGS_H_
