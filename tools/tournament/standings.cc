#include "tools/tournament/standings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

std::vector<v1::TournamentStanding> ComputeStandings(
    const std::vector<std::string>& bots,
    const std::vector<v1::TournamentMatchResult>& results) {
  std::map<std::string, v1::TournamentStanding> by_name;
  std::map<std::string, double> rank_sum;
  for (const std::string& bot : bots) by_name[bot].set_bot(bot);
  for (const v1::TournamentMatchResult& result : results) {
    if (result.verdict() != "genuine") continue;
    const v1::Outcome& outcome = result.outcome();
    const int seats = outcome.seats_size();
    for (int i = 0; i < seats && i < result.seats_size(); ++i) {
      v1::TournamentStanding& s = by_name[result.seats(i)];
      const uint32_t rank = outcome.seats(i).rank();
      double beaten = 0;
      for (int j = 0; j < seats; ++j) {
        if (j == i) continue;
        const uint32_t other = outcome.seats(j).rank();
        beaten += other > rank ? 1.0 : other == rank ? 0.5 : 0.0;
      }
      s.set_matches(s.matches() + 1);
      s.set_points(s.points() + beaten / (seats - 1));
      if (rank == 1) s.set_firsts(s.firsts() + 1);
      if (outcome.seats(i).forfeited()) s.set_forfeits(s.forfeits() + 1);
      rank_sum[result.seats(i)] += rank;
    }
  }
  std::vector<v1::TournamentStanding> standings;
  for (auto& [name, s] : by_name) {
    if (s.matches() > 0) s.set_mean_rank(rank_sum[name] / s.matches());
    standings.push_back(s);
  }
  std::sort(
      standings.begin(), standings.end(),
      [](const v1::TournamentStanding& a, const v1::TournamentStanding& b) {
        if (a.points() != b.points()) return a.points() > b.points();
        if (a.mean_rank() != b.mean_rank()) {
          return a.mean_rank() < b.mean_rank();
        }
        return a.bot() < b.bot();
      });
  return standings;
}

namespace {

// "+12", "-inf": a rating bound for the table.
std::string Elo(double value) {
  if (std::isinf(value)) return value > 0 ? "+inf" : "-inf";
  return absl::StrFormat("%+.0f", value);
}

}  // namespace

std::string FormatStandings(
    const std::vector<v1::TournamentStanding>& standings) {
  size_t width = 3;
  for (const auto& s : standings) width = std::max(width, s.bot().size());
  std::string out =
      absl::StrFormat("%-4s %-*s %8s %8s %7s %7s %9s %6s  %s\n", "#",
                      static_cast<int>(width), "bot", "matches", "points",
                      "score%", "firsts", "forfeits", "elo", "95% interval");
  int place = 0;
  for (const auto& s : standings) {
    ++place;
    const double percent =
        s.matches() == 0 ? 0 : 100.0 * s.points() / s.matches();
    absl::StrAppend(
        &out, absl::StrFormat(
                  "%-4d %-*s %8d %8.1f %6.1f%% %7d %9d %6s  [%s, %s]\n", place,
                  static_cast<int>(width), s.bot(), s.matches(), s.points(),
                  percent, s.firsts(), s.forfeits(), Elo(s.rating()),
                  Elo(s.rating_low()), Elo(s.rating_high())));
  }
  return out;
}

}  // namespace pyramid
