#include "tools/tournament/sprt.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tools/tournament/ratings.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

namespace {

// What a count of 0 becomes, so that every outcome has some probability.
constexpr double kEmptyCount = 1e-3;
// The score of a loss, a draw and a win: the order of every array here.
constexpr std::array<double, 3> kScores = {0, 0.5, 1};

double OrDefault(double rate) {
  return rate == 0 ? kDefaultSprtErrorRate : rate;
}

// The most bisection steps SecularRoot takes. Each step halves the
// interval, and halving any finite width down to the gap between adjacent
// doubles takes at most about 2,100 steps (from 2^1024 to 2^-1074); the
// cap guards only against an interval that stops shrinking.
constexpr int kMaxBisectionSteps = 2200;

// The root x of sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0, for frequencies
// p of the scores a = (0, 1/2, 1), all p_i > 0, and 0 < s < 1. The sum
// falls from +infinity to -infinity on (-1 / (1 - s), 1 / s), where every
// 1 + x (a_i - s) is positive: bisection, down to adjacent doubles. NaN
// when s is not in (0, 1) or the interval is not finite (s too close to 0
// for 1 / s): there is no root to find, and the bisection would not end.
double SecularRoot(const std::array<double, 3>& p, double s) {
  if (!(s > 0 && s < 1)) return NAN;
  double low = -1 / (1 - s), high = 1 / s;
  double mid = NAN;
  for (int step = 0; step < kMaxBisectionSteps; ++step) {
    mid = low + (high - low) / 2;
    if (!std::isfinite(mid)) return NAN;
    if (mid <= low || mid >= high) return mid;
    double sum = 0;
    for (int i = 0; i < 3; ++i) {
      const double a = kScores[i] - s;
      sum += p[i] * a / (1 + mid * a);
    }
    if (sum > 0) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return mid;
}

}  // namespace

absl::Status ValidateSprt(const v1::SprtSettings& settings) {
  if (!std::isfinite(settings.elo0()) || !std::isfinite(settings.elo1())) {
    return absl::InvalidArgumentError("sprt: elo0 and elo1 must be finite");
  }
  for (const auto& [name, elo] :
       {std::pair<const char*, double>{"elo0", settings.elo0()},
        std::pair<const char*, double>{"elo1", settings.elo1()}}) {
    if (!(std::abs(elo) <= kMaxSprtElo)) {
      return absl::InvalidArgumentError(
          absl::StrCat("sprt: ", name, " (", elo, ") must be in [-",
                       kMaxSprtElo, ", ", kMaxSprtElo, "] (at ", kMaxSprtElo,
                       " Elo the expected score is already 1 - 1e-10)"));
    }
  }
  if (!(settings.elo1() > settings.elo0())) {
    return absl::InvalidArgumentError(
        absl::StrCat("sprt: elo1 (", settings.elo1(), ") must exceed elo0 (",
                     settings.elo0(), ")"));
  }
  const double alpha = OrDefault(settings.alpha());
  const double beta = OrDefault(settings.beta());
  if (!(alpha > 0 && alpha < 1 && beta > 0 && beta < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sprt: alpha (", alpha, ") and beta (", beta, ") must be in (0, 1)"));
  }
  if (!(alpha + beta < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sprt: alpha + beta (", alpha + beta, ") must be below 1"));
  }
  return absl::OkStatus();
}

double SprtLogLikelihoodRatio(double elo0, double elo1, int wins, int draws,
                              int losses) {
  if (wins + draws + losses == 0) return 0;
  std::array<double, 3> counts = {static_cast<double>(losses),
                                  static_cast<double>(draws),
                                  static_cast<double>(wins)};
  double n = 0;
  for (double& count : counts) {
    if (count == 0) count = kEmptyCount;
    n += count;
  }
  std::array<double, 3> p;
  for (int i = 0; i < 3; ++i) p[i] = counts[i] / n;
  const double s0 = ScoreFromElo(elo0), s1 = ScoreFromElo(elo1);
  const double x0 = SecularRoot(p, s0), x1 = SecularRoot(p, s1);
  double llr = 0;
  for (int i = 0; i < 3; ++i) {
    llr += p[i] * (std::log1p(x0 * (kScores[i] - s0)) -
                   std::log1p(x1 * (kScores[i] - s1)));
  }
  return n * llr;
}

v1::SprtOutcome EvaluateSprt(const v1::SprtSettings& settings, int wins,
                             int draws, int losses) {
  const double alpha = OrDefault(settings.alpha());
  const double beta = OrDefault(settings.beta());
  v1::SprtOutcome outcome;
  outcome.set_llr(SprtLogLikelihoodRatio(settings.elo0(), settings.elo1(), wins,
                                         draws, losses));
  outcome.set_lower_bound(std::log(beta / (1 - alpha)));
  outcome.set_upper_bound(std::log((1 - beta) / alpha));
  if (outcome.llr() >= outcome.upper_bound()) {
    outcome.set_decision("H1");
  } else if (outcome.llr() <= outcome.lower_bound()) {
    outcome.set_decision("H0");
  } else {
    outcome.set_decision("inconclusive");
  }
  outcome.set_wins(wins);
  outcome.set_draws(draws);
  outcome.set_losses(losses);
  const EloInterval elo = EloDifference(wins, draws, losses);
  outcome.set_elo(elo.elo);
  outcome.set_elo_low(elo.low);
  outcome.set_elo_high(elo.high);
  return outcome;
}

SprtRatioRange SprtReachableRatios(double elo0, double elo1, int wins,
                                   int draws, int losses) {
  // The ratio is 0 without games, not the limit of its regularized
  // formula: the monotony holds among counts of at least one game, so
  // where every candidate below would be empty, one game is taken.
  auto llr = [&](int w, int d, int l) {
    return SprtLogLikelihoodRatio(elo0, elo1, w, d, l);
  };
  SprtRatioRange range;  // 0, 0: no games.
  for (int d = 0; d <= draws; ++d) {
    if (wins + d > 0) {
      range.highest = std::max(range.highest, llr(wins, d, 0));
    } else if (losses > 0) {
      range.highest = std::max(range.highest, llr(0, 0, 1));
    }
    if (losses + d > 0) {
      range.lowest = std::min(range.lowest, llr(0, d, losses));
    } else if (wins > 0) {
      range.lowest = std::min(range.lowest, llr(1, 0, 0));
    }
  }
  return range;
}

}  // namespace pyramid
