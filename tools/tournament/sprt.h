// The sequential probability ratio test between two bots (Tournament.sprt):
// the generalized SPRT on the trinomial (win, draw, loss) model with
// logistic Elo hypotheses, as fishtest computes it. Pure and deterministic;
// docs/tournament.md, section "SPRT", states the formula.
#ifndef PYRAMID_TOOLS_TOURNAMENT_SPRT_H_
#define PYRAMID_TOOLS_TOURNAMENT_SPRT_H_

#include "absl/status/status.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// The error rate an alpha or beta of 0 stands for.
inline constexpr double kDefaultSprtErrorRate = 0.05;

// The largest |elo0| and |elo1| an SPRT takes. At 4000 Elo the expected
// score is 1 - 1e-10 (one loss in ten billion games), its distance from 1
// still held in a double to about six digits; near 6400 Elo it rounds to
// 1 (at the other end, to 0 far later), where the test is undefined.
inline constexpr double kMaxSprtElo = 4000;

// OK when `settings` can run: elo0 and elo1 in [-kMaxSprtElo, kMaxSprtElo]
// with elo1 > elo0; alpha and beta (after 0 becomes kDefaultSprtErrorRate)
// in (0, 1) with alpha + beta < 1, so that lower bound < 0 < upper bound.
// Otherwise INVALID_ARGUMENT saying which (and, for an Elo value out of
// range, the range).
absl::Status ValidateSprt(const referee::v1::SprtSettings& settings);

// The generalized log-likelihood ratio of H1 (expected score
// s1 = ScoreFromElo(elo1)) against H0 (s0 = ScoreFromElo(elo0)) for the
// results of bot 0 against bot 1. Each hypothesis is fitted by maximum
// likelihood: the trinomial (loss, draw, win) distribution with mean score
// s closest to the observed frequencies is p_i / (1 + x (a_i - s)), with
// a = (0, 1/2, 1), p the observed frequencies and x the root of
// sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0; then
// LLR = N sum_i p_i (ln(1 + x0 (a_i - s0)) - ln(1 + x1 (a_i - s1))).
// A count of 0 is replaced by 0.001 (and N is the sum of the counts so
// regularized), as fishtest does. 0 without games. NaN when s0 or s1
// rounds to 1 or to (nearly) 0 in double (an elo above about 6400 or below
// about -123,000), which ValidateSprt's range excludes.
// REQUIRES: the counts >= 0.
double SprtLogLikelihoodRatio(double elo0, double elo1, int wins, int draws,
                              int losses);

// The state of the test after bot 0 scored `wins`, `draws` and `losses`
// against bot 1: decision "H1" when the LLR is at or above
// ln((1 - beta) / alpha), "H0" at or below ln(beta / (1 - alpha)), else
// "inconclusive" (the runner plays on; a test the match limit stops ends
// so); the bounds, the counts, and the Elo difference with its 95%
// interval (EloDifference). REQUIRES: ValidateSprt(settings) is OK.
referee::v1::SprtOutcome EvaluateSprt(const referee::v1::SprtSettings& settings,
                                      int wins, int draws, int losses);

// The lowest and the highest log-likelihood ratio over the sub-counts of
// `wins`, `draws` and `losses` (w' <= wins, d' <= draws, l' <= losses,
// 0, 0, 0 included): the ratios the running ratio (the runner evaluates it
// after each result, in the order they come in) can have passed through in
// some order of those results. Among counts of at least one game the ratio
// rises with each win and falls with each loss, the other counts held
// (sprt_test checks this over a grid of counts and settings; from no games,
// ratio 0, one game can go either way), so the highest is the largest of
// 0 and SprtLogLikelihoodRatio(wins, d', 0) for d' from 0 to `draws` (with
// no wins and no draws, of 0 and the ratio of a single loss), and the
// lowest, mirrored, the smallest of 0 and the ratios of (0, d', losses):
// draws + 1 evaluations each. A decision "H1" is possible only when
// `highest` reaches the upper bound, "H0" only when `lowest` reaches the
// lower one (necessary, not sufficient: every order could pass the other
// bound first). REQUIRES: the counts >= 0.
struct SprtRatioRange {
  double lowest = 0;
  double highest = 0;
};
SprtRatioRange SprtReachableRatios(double elo0, double elo1, int wins,
                                   int draws, int losses);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_SPRT_H_
