#include "tools/tournament/standings.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numeric>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

namespace {

// A bot's standing with its points and rank sum kept exact, for ordering.
struct Tally {
  v1::TournamentStanding standing;
  // Points times the common denominator of every match's seats - 1 (times
  // 2, for the half points of shared ranks): sums of thirds, fifths, ... as
  // integers, which tie exactly where the points are equal.
  uint64_t scaled_points = 0;
  uint64_t rank_sum = 0;
};

// The genuine results' seats, as counted below.
int CountedSeats(const v1::TournamentMatchResult& result) {
  return std::min(result.outcome().seats_size(), result.seats_size());
}

}  // namespace

double PairwisePoints(const v1::Outcome& outcome, int seat) {
  double points = 0;
  if (seat < 0 || seat >= outcome.seats_size()) return points;
  for (int j = 0; j < outcome.seats_size(); ++j) {
    if (j == seat) continue;
    const uint32_t mine = outcome.seats(seat).rank();
    const uint32_t theirs = outcome.seats(j).rank();
    points += theirs > mine ? 1.0 : theirs == mine ? 0.5 : 0.0;
  }
  return points;
}

std::vector<v1::TournamentStanding> ComputeStandings(
    const std::vector<std::string>& bots,
    const std::vector<v1::TournamentMatchResult>& results,
    StandingsOrder order) {
  // The points of a match of k seats are half points over 2 (k - 1): over
  // the least common multiple of those, every sum is exact.
  uint64_t denominator = 2;
  for (const v1::TournamentMatchResult& result : results) {
    if (!IsGenuine(result)) continue;
    const int seats = result.outcome().seats_size();
    if (seats >= 2) {
      denominator = std::lcm(denominator, 2 * static_cast<uint64_t>(seats - 1));
    }
  }
  std::map<std::string, Tally> by_name;
  for (const std::string& bot : bots) by_name[bot].standing.set_bot(bot);
  for (const v1::TournamentMatchResult& result : results) {
    if (!IsGenuine(result)) continue;
    const v1::Outcome& outcome = result.outcome();
    const int seats = outcome.seats_size();
    for (int i = 0; i < CountedSeats(result); ++i) {
      Tally& tally = by_name[result.seats(i)];
      v1::TournamentStanding& s = tally.standing;
      s.set_bot(result.seats(i));
      const uint32_t rank = outcome.seats(i).rank();
      uint64_t halves = 0;  // Half points: 2 per seat beaten, 1 per tie.
      for (int j = 0; j < seats; ++j) {
        if (j == i) continue;
        const uint32_t other = outcome.seats(j).rank();
        halves += other > rank ? 2 : other == rank ? 1 : 0;
      }
      s.set_matches(s.matches() + 1);
      if (seats >= 2) {
        tally.scaled_points += halves * (denominator / (2 * (seats - 1)));
      }
      if (rank == 1) s.set_firsts(s.firsts() + 1);
      if (outcome.seats(i).forfeited()) s.set_forfeits(s.forfeits() + 1);
      tally.rank_sum += rank;
    }
  }
  std::vector<Tally> tallies;
  for (auto& [name, tally] : by_name) {
    v1::TournamentStanding& s = tally.standing;
    // One division each: equal exact values give equal doubles.
    s.set_points(static_cast<double>(tally.scaled_points) /
                 static_cast<double>(denominator));
    if (s.matches() > 0) {
      s.set_mean_rank(static_cast<double>(tally.rank_sum) / s.matches());
    }
    tallies.push_back(std::move(tally));
  }
  // Points (or points per match) and mean ranks compared exactly, so that
  // equal scores fall to the name (a bot without matches has mean rank 0,
  // as its standing shows).
  std::sort(
      tallies.begin(), tallies.end(), [&](const Tally& a, const Tally& b) {
        const uint64_t a_matches = a.standing.matches();
        const uint64_t b_matches = b.standing.matches();
        if (order == StandingsOrder::kPointsPerMatch) {
          if ((a_matches == 0) != (b_matches == 0)) return b_matches == 0;
          // a / a_matches against b / b_matches, multiplied out.
          if (a.scaled_points * b_matches != b.scaled_points * a_matches) {
            return a.scaled_points * b_matches > b.scaled_points * a_matches;
          }
        } else if (a.scaled_points != b.scaled_points) {
          return a.scaled_points > b.scaled_points;
        }
        if (a_matches == 0 || b_matches == 0) {
          if (a_matches != b_matches) return a_matches == 0;
        } else if (a.rank_sum * b_matches != b.rank_sum * a_matches) {
          return a.rank_sum * b_matches < b.rank_sum * a_matches;
        }
        return a.standing.bot() < b.standing.bot();
      });
  std::vector<v1::TournamentStanding> standings;
  for (Tally& tally : tallies) standings.push_back(std::move(tally.standing));
  return standings;
}

StandingsOrder StandingsOrderOf(v1::TournamentFormat format) {
  return format == v1::SWISS ? StandingsOrder::kPointsPerMatch
                             : StandingsOrder::kPoints;
}

std::string FormatName(v1::TournamentFormat format) {
  switch (format) {
    case v1::SWISS:
      return "Swiss";
    case v1::GAUNTLET:
      return "gauntlet";
    default:
      return "round robin";
  }
}

std::string StandingsOrderText(v1::TournamentFormat format) {
  std::string name = FormatName(format);
  name[0] = absl::ascii_toupper(static_cast<unsigned char>(name[0]));
  return absl::StrCat(name, ": ranked by ",
                      format == v1::SWISS
                          ? "score % (points per match played: a bye leaves "
                            "a bot fewer matches, not a lower rank)"
                          : "points",
                      ", then mean rank, then name");
}

std::string FixedText(double value, int decimals, bool sign) {
  std::string text = sign ? absl::StrFormat("%+.*f", decimals, value)
                          : absl::StrFormat("%.*f", decimals, value);
  // A negative value that rounds to zero: the sign goes (or turns to +).
  if (text.size() > 1 && text[0] == '-' &&
      text.find_first_not_of("0.", 1) == std::string::npos) {
    if (sign) {
      text[0] = '+';
    } else {
      text.erase(0, 1);
    }
  }
  return text;
}

namespace {

// "+12", "-inf": a rating bound for the table.
std::string Elo(double value) {
  if (std::isinf(value)) return value > 0 ? "+inf" : "-inf";
  return FixedText(value, 0, /*sign=*/true);
}

}  // namespace

std::string FormatStandings(
    const std::vector<v1::TournamentStanding>& standings) {
  size_t width = 3;
  for (const auto& s : standings) width = std::max(width, s.bot().size());
  std::string out = absl::StrFormat(
      "%-4s %-*s %8s %8s %7s %7s %9s %9s %6s  %s\n", "#",
      static_cast<int>(width), "bot", "matches", "points", "score%", "firsts",
      "forfeits", "restarts", "elo", "95% interval");
  int place = 0;
  for (const auto& s : standings) {
    ++place;
    const double percent =
        s.matches() == 0 ? 0 : 100.0 * s.points() / s.matches();
    absl::StrAppend(
        &out, absl::StrFormat(
                  "%-4d %-*s %8d %8.2f %6.1f%% %7d %9d %9d %6s  [%s, %s]\n",
                  place, static_cast<int>(width), s.bot(), s.matches(),
                  s.points(), percent, s.firsts(), s.forfeits(), s.restarts(),
                  Elo(s.rating()), Elo(s.rating_low()), Elo(s.rating_high())));
  }
  return out;
}

}  // namespace pyramid
