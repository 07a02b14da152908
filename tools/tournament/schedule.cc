#include "tools/tournament/schedule.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Appends every k-subset of [first, n) extended from `prefix`, in
// lexicographic order.
void Subsets(int n, int k, int first, std::vector<int>& prefix,
             std::vector<std::vector<int>>& out) {
  if (static_cast<int>(prefix.size()) == k) {
    out.push_back(prefix);
    return;
  }
  for (int i = first; i <= n - (k - static_cast<int>(prefix.size())); ++i) {
    prefix.push_back(i);
    Subsets(n, k, i + 1, prefix, out);
    prefix.pop_back();
  }
}

// The size of a maximum matching of the graph with adjacency matrix
// `adjacent`: Edmonds' blossom algorithm, O(V^3).
class MaximumMatching {
 public:
  explicit MaximumMatching(const std::vector<std::vector<char>>& adjacent)
      : adjacent_(adjacent),
        n_(static_cast<int>(adjacent.size())),
        mate_(n_, -1),
        parent_(n_),
        base_(n_),
        outer_(n_),
        in_blossom_(n_) {}

  int Size() {
    int size = 0;
    for (int v = 0; v < n_; ++v) {
      for (int w = v + 1; w < n_ && mate_[v] == -1; ++w) {
        if (adjacent_[v][w] && mate_[w] == -1) {
          mate_[v] = w;
          mate_[w] = v;
          ++size;
        }
      }
    }
    for (int root = 0; root < n_; ++root) {
      if (mate_[root] != -1) continue;
      int v = AugmentingPathEnd(root);
      if (v == -1) continue;
      ++size;
      while (v != -1) {
        const int u = parent_[v];
        const int next = mate_[u];
        mate_[v] = u;
        mate_[u] = v;
        v = next;
      }
    }
    return size;
  }

 private:
  // Grows an alternating tree from the free vertex `root`, shrinking odd
  // cycles into their base; returns the free vertex that ends an augmenting
  // path (found through parent_ and mate_), or -1.
  int AugmentingPathEnd(int root) {
    std::fill(outer_.begin(), outer_.end(), 0);
    std::fill(parent_.begin(), parent_.end(), -1);
    for (int v = 0; v < n_; ++v) base_[v] = v;
    outer_[root] = 1;
    std::vector<int> queue = {root};
    for (size_t head = 0; head < queue.size(); ++head) {
      const int v = queue[head];
      for (int to = 0; to < n_; ++to) {
        if (!adjacent_[v][to] || base_[v] == base_[to] || mate_[v] == to) {
          continue;
        }
        if (to == root || (mate_[to] != -1 && parent_[mate_[to]] != -1)) {
          const int base = CommonBase(v, to);
          std::fill(in_blossom_.begin(), in_blossom_.end(), 0);
          MarkPath(v, base, to);
          MarkPath(to, base, v);
          for (int i = 0; i < n_; ++i) {
            if (!in_blossom_[base_[i]]) continue;
            base_[i] = base;
            if (!outer_[i]) {
              outer_[i] = 1;
              queue.push_back(i);
            }
          }
        } else if (parent_[to] == -1) {
          parent_[to] = v;
          if (mate_[to] == -1) return to;
          outer_[mate_[to]] = 1;
          queue.push_back(mate_[to]);
        }
      }
    }
    return -1;
  }

  // The base of the blossom closed by the edge a-b.
  int CommonBase(int a, int b) const {
    std::vector<char> on_path(n_, 0);
    while (true) {
      a = base_[a];
      on_path[a] = 1;
      if (mate_[a] == -1) break;
      a = parent_[mate_[a]];
    }
    while (true) {
      b = base_[b];
      if (on_path[b]) return b;
      b = parent_[mate_[b]];
    }
  }

  void MarkPath(int v, int base, int child) {
    while (base_[v] != base) {
      in_blossom_[base_[v]] = in_blossom_[base_[mate_[v]]] = 1;
      parent_[v] = child;
      child = mate_[v];
      v = parent_[mate_[v]];
    }
  }

  const std::vector<std::vector<char>>& adjacent_;
  const int n_;
  std::vector<int> mate_;
  std::vector<int> parent_;
  std::vector<int> base_;
  std::vector<char> outer_;
  std::vector<char> in_blossom_;
};

// Top-down pairing of the bots in `ranked` (best first) with as few
// rematches as possible. Positions below are places in `ranked`.
//
// The fewest rematches with which a set of bots can be paired is half its
// size minus a maximum matching among pairs that have not met (pair those,
// then the rest in any way). So each bot, from the top, takes the first
// partner that keeps the rematches still needed within the budget left;
// the result is the first pairing in top-down order among those with the
// fewest rematches, found without search.
class SwissPairer {
 public:
  SwissPairer(std::vector<int> ranked,
              const std::vector<std::vector<int>>& games_between)
      : ranked_(std::move(ranked)),
        met_(ranked_.size(), std::vector<char>(ranked_.size(), 0)),
        unpaired_(ranked_.size(), 1) {
    for (size_t i = 0; i < ranked_.size(); ++i) {
      for (size_t j = 0; j < ranked_.size(); ++j) {
        const int a = ranked_[i], b = ranked_[j];
        met_[i][j] = games_between[a][b] > 0 || games_between[b][a] > 0;
      }
    }
  }

  std::vector<std::pair<int, int>> Pair() {
    const int n = static_cast<int>(ranked_.size());
    int budget = FewestRematches();
    std::vector<std::pair<int, int>> pairs;
    for (int first = 0; first < n; ++first) {
      if (!unpaired_[first]) continue;
      unpaired_[first] = 0;
      for (int partner = first + 1; partner < n; ++partner) {
        const int cost = met_[first][partner];
        if (!unpaired_[partner] || cost > budget) continue;
        unpaired_[partner] = 0;
        if (FewestRematches() <= budget - cost) {
          budget -= cost;
          pairs.emplace_back(ranked_[first], ranked_[partner]);
          break;
        }
        unpaired_[partner] = 1;
      }
    }
    return pairs;
  }

 private:
  // The fewest rematches with which the unpaired bots can be paired.
  int FewestRematches() const {
    std::vector<int> left;
    for (size_t i = 0; i < unpaired_.size(); ++i) {
      if (unpaired_[i]) left.push_back(static_cast<int>(i));
    }
    const size_t n = left.size();
    std::vector<std::vector<char>> new_opponents(n, std::vector<char>(n, 0));
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        new_opponents[i][j] = i != j && !met_[left[i]][left[j]];
      }
    }
    return static_cast<int>(n / 2) - MaximumMatching(new_opponents).Size();
  }

  const std::vector<int> ranked_;
  std::vector<std::vector<char>> met_;
  std::vector<char> unpaired_;
};

// INVALID_ARGUMENT unless `num_bots` bots can fill `seats` seats (at least
// 2) for `rounds` (at least 1) rounds.
absl::Status CheckPlayable(int num_bots, int seats, uint32_t rounds) {
  if (seats < 2) return absl::InvalidArgumentError("a match needs 2 seats");
  if (num_bots < seats) {
    return absl::InvalidArgumentError(
        absl::StrCat("the game seats ", seats, " bots per match but only ",
                     num_bots, num_bots == 1 ? " is entered" : " are entered"));
  }
  if (rounds < 1) return absl::InvalidArgumentError("rounds must be >= 1");
  return absl::OkStatus();
}

// The refusal of a schedule of more than kMaxScheduledMatches matches.
absl::Status TooManyMatches(int num_bots, int seats, uint32_t rounds) {
  return absl::InvalidArgumentError(
      absl::StrCat("the schedule would hold more than ", kMaxScheduledMatches,
                   " matches (", num_bots, " bots, ", seats, " seats, ", rounds,
                   rounds == 1 ? " round)" : " rounds)"));
}

}  // namespace

absl::StatusOr<std::vector<ScheduledMatch>> MakeSchedule(
    v1::TournamentFormat format, int num_bots, int seats, uint32_t rounds,
    uint64_t seed) {
  if (absl::Status s = CheckPlayable(num_bots, seats, rounds); !s.ok()) {
    return s;
  }
  // The number of matches, before enumerating them: C(free bots, free
  // seats) tables, each in `seats` rotations, each round.
  const int free_bots = format == v1::GAUNTLET ? num_bots - 1 : num_bots;
  const int free_seats = format == v1::GAUNTLET ? seats - 1 : seats;
  uint64_t count = 1;
  for (int k = 1; k <= free_seats && count <= kMaxScheduledMatches; ++k) {
    count = count * static_cast<uint64_t>(free_bots - free_seats + k) / k;
  }
  count *= static_cast<uint64_t>(seats);
  if (count > kMaxScheduledMatches || count * rounds > kMaxScheduledMatches) {
    return TooManyMatches(num_bots, seats, rounds);
  }
  std::vector<std::vector<int>> tables;
  std::vector<int> prefix;
  if (format == v1::GAUNTLET) {
    prefix.push_back(0);
    Subsets(num_bots, seats, 1, prefix, tables);
  } else if (format == v1::ROUND_ROBIN ||
             format == v1::TOURNAMENT_FORMAT_UNSPECIFIED) {
    Subsets(num_bots, seats, 0, prefix, tables);
  } else if (format == v1::SWISS) {
    return absl::InvalidArgumentError(
        "Swiss rounds are paired one at a time from the results so far "
        "(PairSwissRound), not scheduled up front");
  } else {
    return absl::InvalidArgumentError("unknown tournament format");
  }
  std::vector<ScheduledMatch> schedule;
  for (uint32_t round = 0; round < rounds; ++round) {
    for (const std::vector<int>& table : tables) {
      for (int shift = 0; shift < seats; ++shift) {
        ScheduledMatch match;
        for (int seat = 0; seat < seats; ++seat) {
          match.bots.push_back(table[(seat + shift) % seats]);
        }
        schedule.push_back(std::move(match));
      }
    }
  }
  std::string seed_bytes;
  for (int i = 0; i < 8; ++i) seed_bytes.push_back(char(seed >> (8 * i)));
  RandomStream stream(Sha256(seed_bytes));
  stream.Shuffle(schedule);
  for (size_t i = 0; i < schedule.size(); ++i) schedule[i].index = i;
  return schedule;
}

absl::StatusOr<uint32_t> SwissScheduleSize(int num_bots, uint32_t rounds) {
  if (absl::Status s = CheckPlayable(num_bots, /*seats=*/2, rounds); !s.ok()) {
    return s;
  }
  const uint64_t count = static_cast<uint64_t>(num_bots / 2 * 2) * rounds;
  if (count > kMaxScheduledMatches) return TooManyMatches(num_bots, 2, rounds);
  return static_cast<uint32_t>(count);
}

SwissRound PairSwissRound(const std::vector<double>& points,
                          const std::vector<std::vector<int>>& games_between,
                          const std::vector<bool>& had_bye) {
  std::vector<int> ranked(points.size());
  for (size_t i = 0; i < ranked.size(); ++i) ranked[i] = static_cast<int>(i);
  std::sort(ranked.begin(), ranked.end(), [&points](int a, int b) {
    if (points[a] != points[b]) return points[a] > points[b];
    return a < b;
  });
  SwissRound round;
  if (ranked.size() % 2 == 1) {
    auto bye = std::find_if(ranked.rbegin(), ranked.rend(),
                            [&had_bye](int bot) { return !had_bye[bot]; });
    if (bye == ranked.rend()) bye = ranked.rbegin();
    round.bye = *bye;
    ranked.erase(std::next(bye).base());
  }
  round.pairs = SwissPairer(std::move(ranked), games_between).Pair();
  return round;
}

std::vector<ScheduledMatch> SwissRoundMatches(const SwissRound& round,
                                              uint32_t first_index) {
  std::vector<ScheduledMatch> matches;
  for (const auto& [high, low] : round.pairs) {
    matches.push_back({first_index++, {high, low}});
    matches.push_back({first_index++, {low, high}});
  }
  return matches;
}

}  // namespace pyramid
