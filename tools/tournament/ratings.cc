#include "tools/tournament/ratings.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <utility>

#include "tools/tournament/match_verdict.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Elo points per natural-log unit of odds: 400 / ln(10).
constexpr double kEloPerNat = 173.71779276130073;
// Newton's method on the log-likelihood stops after a step that moves no
// rating by more than this (in natural-log units of odds, about 2e-8 Elo),
// when rounding leaves no step that raises the likelihood, or after
// kMaxNewtonSteps steps (under ten are enough from a start at 0; the cap
// only bounds the loop).
constexpr double kStepTolerance = 1e-10;
constexpr int kMaxNewtonSteps = 100;
// A rise of the log-likelihood below this fraction of its magnitude is lost
// in the rounding of its sum of terms.
constexpr double kUnmeasurableRise = 1e-10;
constexpr int kMaxStepHalvings = 60;

// log(1 / (1 + e^-x)) without overflow.
double LogSigmoid(double x) {
  return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x));
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// The sufficient statistics of the games between every pair of bots: three
// tables of num_bots^2 doubles, indexed in size_t (an int index overflows
// above 46,340 bots).
class PairTable {
 public:
  explicit PairTable(int num_bots)
      : n_(static_cast<size_t>(num_bots)),
        games_(n_ * n_),
        points_(n_ * n_),
        information_(n_ * n_) {}

  void Add(const BradleyTerryGame& game) {
    const int a = game.first, b = game.second;
    if (a == b) return;
    games_[At(a, b)] += 1;
    games_[At(b, a)] += 1;
    points_[At(a, b)] += game.score;
    points_[At(b, a)] += 1 - game.score;
    information_[At(a, b)] += game.information;
    information_[At(b, a)] += game.information;
  }

  double games(int a, int b) const { return games_[At(a, b)]; }
  // The points a took from b.
  double points(int a, int b) const { return points_[At(a, b)]; }
  double information(int a, int b) const { return information_[At(a, b)]; }
  bool Met(int a, int b) const { return games(a, b) > 0; }
  bool TookPoints(int a, int b) const { return points(a, b) > 0; }

 private:
  size_t At(int a, int b) const {
    return static_cast<size_t>(a) * n_ + static_cast<size_t>(b);
  }

  size_t n_;
  std::vector<double> games_;
  std::vector<double> points_;
  std::vector<double> information_;
};

// Splits `members` (ascending) into the classes of the transitive closure of
// `linked` restricted to them: with `mutual` the classes of mutual
// reachability (strongly connected components), otherwise of reachability
// along a symmetric relation (connected components). Each class ascending,
// classes ordered by their first member.
template <typename Linked>
std::vector<std::vector<int>> Classes(const std::vector<int>& members,
                                      Linked linked, bool mutual) {
  const size_t m = members.size();
  std::vector<char> reach(m * m);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < m; ++j) {
      reach[i * m + j] = i == j || linked(members[i], members[j]);
    }
  }
  for (size_t k = 0; k < m; ++k) {  // Warshall.
    for (size_t i = 0; i < m; ++i) {
      if (!reach[i * m + k]) continue;
      for (size_t j = 0; j < m; ++j) {
        if (reach[k * m + j]) reach[i * m + j] = 1;
      }
    }
  }
  std::vector<std::vector<int>> classes;
  std::vector<char> placed(m);
  for (size_t i = 0; i < m; ++i) {
    if (placed[i]) continue;
    classes.emplace_back();
    for (size_t j = i; j < m; ++j) {
      const bool same = reach[i * m + j] && (!mutual || reach[j * m + i]);
      if (same && !placed[j]) {
        placed[j] = 1;
        classes.back().push_back(members[j]);
      }
    }
  }
  return classes;
}

// Bots linked by games, directly or through others.
std::vector<std::vector<int>> LinkedSets(const PairTable& table,
                                         const std::vector<int>& members) {
  return Classes(
      members, [&](int a, int b) { return table.Met(a, b); }, false);
}

// Groups within which every bot reaches every other by "took points from"
// steps: the likelihood has a finite maximum exactly when a linked set is
// one group.
std::vector<std::vector<int>> Groups(const PairTable& table,
                                     const std::vector<int>& members) {
  return Classes(
      members, [&](int a, int b) { return table.TookPoints(a, b); }, true);
}

// The Cholesky factor of a symmetric positive definite matrix (row-major,
// indexed in size_t), to solve m x = b.
class Cholesky {
 public:
  // False when m is not numerically positive definite.
  bool Factor(size_t n, std::vector<double> m) {
    n_ = n;
    for (size_t j = 0; j < n; ++j) {
      double d = m[j * n + j];
      for (size_t k = 0; k < j; ++k) d -= m[j * n + k] * m[j * n + k];
      if (!(d > 0)) return false;
      d = std::sqrt(d);
      m[j * n + j] = d;
      for (size_t i = j + 1; i < n; ++i) {
        double s = m[i * n + j];
        for (size_t k = 0; k < j; ++k) s -= m[i * n + k] * m[j * n + k];
        m[i * n + j] = s / d;
      }
    }
    l_ = std::move(m);
    return true;
  }

  // Replaces b by the solution x. REQUIRES: Factor returned true.
  void Solve(std::vector<double>& b) const {
    for (size_t i = 0; i < n_; ++i) {  // L y = b.
      double s = b[i];
      for (size_t k = 0; k < i; ++k) s -= l_[i * n_ + k] * b[k];
      b[i] = s / l_[i * n_ + i];
    }
    for (size_t i = n_; i-- > 0;) {  // L^T x = y.
      double s = b[i];
      for (size_t k = i + 1; k < n_; ++k) s -= l_[k * n_ + i] * b[k];
      b[i] = s / l_[i * n_ + i];
    }
  }

 private:
  size_t n_ = 0;
  std::vector<double> l_;  // Lower triangle.
};

// The maximum-likelihood fit of one group (at least two bots, every bot
// reaching every other by "took points from" steps, so the maximum is
// finite and unique under the mean-0 constraint).
class GroupFit {
 public:
  GroupFit(const PairTable& table, const std::vector<int>& members)
      : table_(table), members_(members), n_(members.size()), theta_(n_) {}

  // Ratings with their intervals, in `members` order.
  std::vector<EloInterval> Fit() {
    Maximize();
    std::vector<EloInterval> ratings(n_);
    for (int i = 0; i < n_; ++i) {
      ratings[i] = {theta_[i] * kEloPerNat, -kInfinity, kInfinity};
    }
    // With H a Laplacian (null space: the constant vectors) and J the
    // all-ones matrix, (H + J / n)^-1 = H^+ + J / n, and H^+ is the
    // covariance of the ratings under the mean-0 constraint.
    Cholesky shifted;
    if (!shifted.Factor(static_cast<size_t>(n_),
                        Shifted(Hessian(/*information=*/true)))) {
      return ratings;
    }
    for (int i = 0; i < n_; ++i) {
      std::vector<double> column(n_);
      column[i] = 1;
      shifted.Solve(column);
      const double variance = std::max(0.0, column[i] - 1.0 / n_);
      const double margin = kZ95 * std::sqrt(variance) * kEloPerNat;
      ratings[i].low = ratings[i].elo - margin;
      ratings[i].high = ratings[i].elo + margin;
    }
    return ratings;
  }

 private:
  // Newton's method with backtracking (Armijo) on the concave
  // log-likelihood, from all ratings 0; every step keeps their sum at 0.
  void Maximize() {
    for (int step = 0; step < kMaxNewtonSteps; ++step) {
      const std::vector<double> gradient = Gradient();
      std::vector<double> direction = gradient;
      Cholesky newton;
      if (!newton.Factor(static_cast<size_t>(n_),
                         Shifted(Hessian(/*information=*/false))))
        return;
      newton.Solve(direction);
      double slope = 0, largest = 0;
      for (int i = 0; i < n_; ++i) {
        slope += gradient[i] * direction[i];
        largest = std::max(largest, std::abs(direction[i]));
      }
      if (largest <= kStepTolerance) {
        for (int i = 0; i < n_; ++i) theta_[i] += direction[i];
        return;
      }
      if (!Ascend(direction, slope)) return;
    }
  }

  // Moves along `direction` by the longest of the steps 1, 1/2, 1/4, ...
  // that raises the log-likelihood by at least 1e-4 of the rise the slope
  // predicts. Close to the maximum, where that rise (slope / 2 for the
  // full Newton step) drowns in the rounding error of the log-likelihood,
  // the full step is taken untested: Newton's method converges
  // quadratically there. False, leaving the ratings as they are, when no
  // step passes: the ratings are then at the maximum as far as doubles tell.
  bool Ascend(const std::vector<double>& direction, double slope) {
    const double base = LogLikelihood(theta_);
    if (slope <= kUnmeasurableRise * (1 + std::abs(base))) {
      for (int i = 0; i < n_; ++i) theta_[i] += direction[i];
      return true;
    }
    std::vector<double> next(n_);
    double t = 1;
    for (int halving = 0; halving <= kMaxStepHalvings; ++halving, t /= 2) {
      for (int i = 0; i < n_; ++i) next[i] = theta_[i] + t * direction[i];
      if (LogLikelihood(next) >= base + 1e-4 * t * slope) {
        theta_ = next;
        return true;
      }
    }
    return false;
  }

  int Bot(int i) const { return members_[i]; }

  double LogLikelihood(const std::vector<double>& theta) const {
    double sum = 0;
    for (int i = 0; i < n_; ++i) {
      for (int j = i + 1; j < n_; ++j) {
        if (!table_.Met(Bot(i), Bot(j))) continue;
        const double d = theta[i] - theta[j];
        sum += table_.points(Bot(i), Bot(j)) * LogSigmoid(d) +
               table_.points(Bot(j), Bot(i)) * LogSigmoid(-d);
      }
    }
    return sum;
  }

  // Each bot's score minus its expected score.
  std::vector<double> Gradient() const {
    std::vector<double> gradient(n_);
    for (int i = 0; i < n_; ++i) {
      for (int j = 0; j < n_; ++j) {
        if (i == j || !table_.Met(Bot(i), Bot(j))) continue;
        gradient[i] +=
            table_.points(Bot(i), Bot(j)) -
            table_.games(Bot(i), Bot(j)) * Sigmoid(theta_[i] - theta_[j]);
      }
    }
    return gradient;
  }

  // Minus the Hessian of the log-likelihood, a weighted graph Laplacian:
  // weight games * p * (1 - p) between two bots; with `information` each
  // game counts by its information share instead of as 1.
  std::vector<double> Hessian(bool information) const {
    const size_t n = static_cast<size_t>(n_);
    std::vector<double> h(n * n);
    for (int i = 0; i < n_; ++i) {
      for (int j = 0; j < n_; ++j) {
        if (i == j || !table_.Met(Bot(i), Bot(j))) continue;
        const double d = theta_[i] - theta_[j];
        const double count = information ? table_.information(Bot(i), Bot(j))
                                         : table_.games(Bot(i), Bot(j));
        const double w = count * Sigmoid(d) * Sigmoid(-d);
        h[static_cast<size_t>(i) * n + static_cast<size_t>(j)] -= w;
        h[static_cast<size_t>(i) * n + static_cast<size_t>(i)] += w;
      }
    }
    return h;
  }

  // h + J / n: positive definite when the group is linked, and its inverse
  // maps a sum-0 vector to the sum-0 solution of h x = b.
  std::vector<double> Shifted(std::vector<double> h) const {
    for (double& x : h) x += 1.0 / n_;
    return h;
  }

  const PairTable& table_;
  const std::vector<int>& members_;
  const int n_;
  std::vector<double> theta_;  // Ratings in natural-log units of odds.
};

// No other bot of `members` took points from a bot of `group`.
bool Unbeaten(const PairTable& table, const std::vector<int>& group,
              const std::vector<int>& members) {
  for (int other : members) {
    if (std::binary_search(group.begin(), group.end(), other)) continue;
    for (int bot : group) {
      if (table.TookPoints(other, bot)) return false;
    }
  }
  return true;
}

// No bot of `group` took points from another bot of `members`.
bool Scoreless(const PairTable& table, const std::vector<int>& group,
               const std::vector<int>& members) {
  for (int other : members) {
    if (std::binary_search(group.begin(), group.end(), other)) continue;
    for (int bot : group) {
      if (table.TookPoints(bot, other)) return false;
    }
  }
  return true;
}

// The only largest group, or null when several share the largest size.
const std::vector<int>* OnlyLargest(
    const std::vector<std::vector<int>>& groups) {
  const std::vector<int>* largest = nullptr;
  bool shared = false;
  for (const std::vector<int>& group : groups) {
    if (largest == nullptr || group.size() > largest->size()) {
      largest = &group;
      shared = false;
    } else if (group.size() == largest->size()) {
      shared = true;
    }
  }
  return shared ? nullptr : largest;
}

// For a bot rated +infinity (`sign` 1, it won every game) or -infinity
// (`sign` -1, it lost every game): the 95% likelihood-ratio bound on its
// rating that the data do give, below (or above) which its record would be
// implausible: the x where -2 log L(x) = 1.96^2, L being the likelihood of
// its games with every opponent held at its fitted rating. Opponents rated
// infinitely on the other side add nothing (their games have likelihood 1
// in the limit). Unbounded (-infinity for sign 1, +infinity for -1) when
// it has no finite opponent, met one rated infinitely on its own side, or
// met one whose finite rating is itself unbounded.
double OneSidedBound(const PairTable& table, int bot, int sign,
                     const std::vector<EloInterval>& ratings) {
  constexpr double kLimit = kZ95 * kZ95 / 2;         // -log L at the bound.
  std::vector<std::pair<double, double>> opponents;  // (rating, weight)
  for (int other = 0; other < static_cast<int>(ratings.size()); ++other) {
    if (other == bot || !table.Met(bot, other)) continue;
    const double r = ratings[other].elo;
    if (r == sign * kInfinity) return -sign * kInfinity;
    if (std::isinf(r)) continue;
    // An opponent whose own rating the data leave unbounded (alone in its
    // set) is no reference either.
    if (std::isinf(ratings[other].low) && std::isinf(ratings[other].high)) {
      return -sign * kInfinity;
    }
    opponents.emplace_back(r, table.information(bot, other));
  }
  if (opponents.empty()) return -sign * kInfinity;
  // -log L(x) = sum of w * -log sigmoid(sign * (x - r)), monotone in x.
  auto minus_log_likelihood = [&](double x) {
    double sum = 0;
    for (const auto& [r, w] : opponents) {
      sum -= w * LogSigmoid(sign * (x - r) / kEloPerNat);
    }
    return sum;
  };
  // Bisection between a rating far beyond every opponent (where -log L is
  // near 0) and one far on the wrong side (where it is huge).
  double near = opponents.front().first;
  for (const auto& [r, w] : opponents)
    near = sign > 0 ? std::max(near, r) : std::min(near, r);
  double inside = near + sign * 1e5;   // -log L below kLimit.
  double outside = near - sign * 1e5;  // -log L above kLimit.
  for (int i = 0; i < 200; ++i) {
    const double mid = (inside + outside) / 2;
    (minus_log_likelihood(mid) < kLimit ? inside : outside) = mid;
  }
  return (inside + outside) / 2;
}

}  // namespace

double EloFromScore(double score) {
  if (score <= 0) return -kInfinity;
  if (score >= 1) return kInfinity;
  return -400 * std::log10(1 / score - 1);
}

double ScoreFromElo(double elo) { return 1 / (1 + std::pow(10.0, -elo / 400)); }

EloInterval EloDifference(int wins, int draws, int losses) {
  const double n = static_cast<double>(wins) + draws + losses;
  if (n == 0) return {0, -kInfinity, kInfinity};
  const double score = (wins + 0.5 * draws) / n;
  const double elo = EloFromScore(score);
  if (std::isinf(elo)) return {elo, -kInfinity, kInfinity};
  const double variance =
      (wins * (1 - score) * (1 - score) +
       draws * (0.5 - score) * (0.5 - score) + losses * score * score) /
      n;
  const double margin = kZ95 * std::sqrt(variance / n);
  return {elo, EloFromScore(score - margin), EloFromScore(score + margin)};
}

double PairwiseInformationShare(int seats) { return 3.0 / (seats + 1); }

std::vector<PairwiseGame> PairwiseGames(
    const v1::TournamentMatchResult& result) {
  const int seats =
      std::min(result.seats_size(), result.outcome().seats_size());
  std::vector<PairwiseGame> games;
  if (seats < 2) return games;
  const double information = PairwiseInformationShare(seats);
  for (int i = 0; i < seats; ++i) {
    for (int j = i + 1; j < seats; ++j) {
      if (result.seats(i) == result.seats(j)) continue;
      const uint32_t rank_i = result.outcome().seats(i).rank();
      const uint32_t rank_j = result.outcome().seats(j).rank();
      const double score = rank_i < rank_j ? 1 : rank_i == rank_j ? 0.5 : 0;
      games.push_back({result.seats(i), result.seats(j), score, information});
    }
  }
  return games;
}

std::vector<EloInterval> FitBradleyTerry(
    int num_bots, const std::vector<BradleyTerryGame>& games) {
  std::vector<EloInterval> ratings(num_bots, {0, -kInfinity, kInfinity});
  PairTable table(num_bots);
  for (const BradleyTerryGame& game : games) table.Add(game);

  // The bots that met another (a game against itself is none), ascending.
  std::vector<char> met(static_cast<size_t>(num_bots));
  for (const BradleyTerryGame& game : games) {
    if (game.first != game.second) met[game.first] = met[game.second] = 1;
  }
  std::vector<int> played;
  for (int bot = 0; bot < num_bots; ++bot) {
    if (met[bot]) played.push_back(bot);
  }
  std::vector<std::vector<int>> pending = LinkedSets(table, played);
  while (!pending.empty()) {
    const std::vector<int> members = std::move(pending.back());
    pending.pop_back();
    if (members.size() < 2) continue;  // Nothing to compare with.
    const std::vector<std::vector<int>> groups = Groups(table, members);
    if (groups.size() == 1) {
      const std::vector<EloInterval> fitted = GroupFit(table, members).Fit();
      for (size_t i = 0; i < members.size(); ++i) {
        ratings[members[i]] = fitted[i];
      }
      continue;
    }
    // A linked set of several groups has at least one unbeaten and one
    // scoreless group, at most one of them the only largest: every pass
    // rates at least one group, so the loop ends.
    const std::vector<int>* largest = OnlyLargest(groups);
    std::vector<int> rest;
    for (const std::vector<int>& group : groups) {
      double infinite = 0;
      if (&group != largest) {
        if (Unbeaten(table, group, members)) {
          infinite = kInfinity;
        } else if (Scoreless(table, group, members)) {
          infinite = -kInfinity;
        }
      }
      for (int bot : group) {
        if (infinite != 0) {
          ratings[bot].elo = infinite;
        } else {
          rest.push_back(bot);
        }
      }
    }
    std::sort(rest.begin(), rest.end());
    for (std::vector<int>& set : LinkedSets(table, rest)) {
      pending.push_back(std::move(set));
    }
  }
  for (int bot = 0; bot < num_bots; ++bot) {
    if (ratings[bot].elo == kInfinity) {
      ratings[bot].low = OneSidedBound(table, bot, 1, ratings);
    } else if (ratings[bot].elo == -kInfinity) {
      ratings[bot].high = OneSidedBound(table, bot, -1, ratings);
    }
  }
  return ratings;
}

std::string ApplyRatings(const std::vector<std::string>& bots,
                         const std::vector<v1::TournamentMatchResult>& results,
                         int seats,
                         std::vector<v1::TournamentStanding>& standings) {
  std::map<std::string, int> index;
  std::vector<BradleyTerryGame> games;
  auto index_of = [&index](const std::string& bot) {
    return index.emplace(bot, static_cast<int>(index.size())).first->second;
  };
  for (const std::string& bot : bots) index_of(bot);
  for (const v1::TournamentMatchResult& result : results) {
    if (!IsGenuine(result)) continue;
    for (const PairwiseGame& game : PairwiseGames(result)) {
      games.push_back({index_of(game.first), index_of(game.second), game.score,
                       game.information});
    }
  }
  for (const v1::TournamentStanding& standing : standings) {
    index_of(standing.bot());
  }
  const std::vector<EloInterval> ratings =
      FitBradleyTerry(static_cast<int>(index.size()), games);
  for (v1::TournamentStanding& standing : standings) {
    const EloInterval& rating = ratings[index.at(standing.bot())];
    standing.set_rating(rating.elo);
    standing.set_rating_low(rating.low);
    standing.set_rating_high(rating.high);
  }
  return seats == 2 ? "bradley_terry" : "bradley_terry_pairwise";
}

}  // namespace pyramid
