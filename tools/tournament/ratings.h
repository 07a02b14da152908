// Ratings from verified match results: Elo from a score, the Elo difference
// of two bots with its 95% interval, and Bradley–Terry maximum-likelihood
// ratings with 95% intervals for any number of bots and seats. Pure and
// deterministic (no I/O, no clocks, no randomness). docs/tournament.md,
// section "Ratings", states the models and why they are computed this way.
#ifndef PYRAMID_TOOLS_TOURNAMENT_RATINGS_H_
#define PYRAMID_TOOLS_TOURNAMENT_RATINGS_H_

#include <string>
#include <vector>

#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// The 97.5% quantile of the standard normal distribution: a 95% interval is
// the estimate plus or minus kZ95 standard errors.
inline constexpr double kZ95 = 1.959963984540054;

// The Elo difference d at which the expected score is `score`, under the
// logistic model score = 1 / (1 + 10^(-d / 400)): -400 log10(1 / score - 1).
// -infinity for score <= 0, +infinity for score >= 1.
double EloFromScore(double score);

// The expected score at Elo difference `elo` (the inverse of EloFromScore).
double ScoreFromElo(double elo);

// A value on the Elo scale with its 95% confidence interval:
// low <= elo <= high. Any of the three may be infinite.
struct EloInterval {
  double elo = 0;
  double low = 0;
  double high = 0;
};

// The Elo difference of a bot over one opponent from its wins, draws and
// losses against it (a draw is half a point), with the 95% interval that
// cutechess-cli and fastchess report: the score s = (W + D / 2) / N, the
// per-game variance v = (W (1 - s)^2 + D (1/2 - s)^2 + L s^2) / N, and the
// interval [EloFromScore(s - kZ95 sqrt(v / N)),
//           EloFromScore(s + kZ95 sqrt(v / N))].
// Without games: 0 with infinite bounds. At a score of 0 or 1 the estimate
// is infinite and, the normal approximation being void there, so are both
// bounds. REQUIRES: the counts are >= 0.
EloInterval EloDifference(int wins, int draws, int losses);

// One game between two bots, as the rating model sees it.
struct PairwiseGame {
  std::string first;
  std::string second;
  double score = 0;  // The first bot's: 1 a win, 0.5 a draw, 0 a loss.
  // The share of a whole independent game's Fisher information the game
  // carries: 1 for a two-seat match; 3 / (k + 1) for each of the
  // k (k - 1) / 2 games of a k-seat match, which are correlated
  // (PairwiseInformationShare; derived in docs/tournament.md).
  double information = 1;
};

// 3 / (seats + 1): the information share of each pairwise game of a match
// with `seats` seats (1 for two seats). REQUIRES: seats >= 2.
double PairwiseInformationShare(int seats);

// The games of one match, whatever its verdict: one for every pair of seats
// i < j (seat order), won by the better (lower) rank, drawn on a shared
// rank. Two seats give one game. Seats beyond the shorter of
// `result.seats` and `result.outcome().seats` are ignored, and so is a pair
// of seats played by the same bot.
std::vector<PairwiseGame> PairwiseGames(
    const referee::v1::TournamentMatchResult& result);

// A game between bots given by index, for FitBradleyTerry.
struct BradleyTerryGame {
  int first = 0;
  int second = 0;
  double score = 0;        // As PairwiseGame::score.
  double information = 1;  // As PairwiseGame::information.
};

// Bradley–Terry ratings of bots 0..num_bots-1 on the Elo scale: the maximum
// of the likelihood prod (p_ab^s (1 - p_ab)^(1 - s)) over the games, with
// p_ab = ScoreFromElo(r_a - r_b) and s the first bot's score (so a draw
// counts as half a win). Intervals come from the observed Fisher
// information under the constraint that the fitted ratings have mean 0,
// each game weighted by its `information`.
//
// Where the likelihood has no finite maximum (docs/tournament.md, "Bots that
// won or lost everything"): bots linked by games are split into groups
// within which every bot can reach every other by "took points from" steps;
// the groups that no other bot took points from get +infinity, those that
// took no points get -infinity, except the largest group when it is the
// only largest, which stays finite; this repeats on what is left. Finite
// ratings have mean 0 within each set of bots linked by games (sets that
// never met are not comparable). A bot without games or alone in its set
// gets rating 0 and infinite bounds. A bot rated +infinity gets the 95%
// likelihood-ratio lower bound its games give with its opponents held at
// their fit (docs/tournament.md), and +infinity above; -infinity likewise
// mirrored; unbounded when it has no finite opponent or met a bot rated
// infinitely on its own side.
//
// Cost: three num_bots x num_bots tables of doubles (24 num_bots^2 bytes:
// 400 MB at 4,096 bots; an allocation too large throws std::bad_alloc or
// std::length_error, never wraps around) and time cubic in the bots of a
// linked set: a caller rating bots from untrusted input bounds their
// number first (replay/results_check.h rates only bots that played).
// REQUIRES: 0 <= first, second < num_bots; 0 <= score <= 1; information > 0.
std::vector<EloInterval> FitBradleyTerry(
    int num_bots, const std::vector<BradleyTerryGame>& games);

// Fills rating, rating_low and rating_high of every standing (matched by
// bot name; the order of `standings` is kept) from FitBradleyTerry on the
// PairwiseGames of the results whose verdict is "genuine". The rated bots
// are `bots` and any other bot named in those results or in `standings`
// (FitBradleyTerry's cost is in their number); a bot without a game gets
// rating 0, bounds -infinity and +infinity.
// Returns the model name for TournamentResults.rating_model:
// "bradley_terry" when `seats` is 2, else "bradley_terry_pairwise".
std::string ApplyRatings(
    const std::vector<std::string>& bots,
    const std::vector<referee::v1::TournamentMatchResult>& results, int seats,
    std::vector<referee::v1::TournamentStanding>& standings);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_RATINGS_H_
