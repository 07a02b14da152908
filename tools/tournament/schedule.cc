#include "tools/tournament/schedule.h"

#include <string>

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

}  // namespace

absl::StatusOr<std::vector<ScheduledMatch>> MakeSchedule(
    v1::TournamentFormat format, int num_bots, int seats, int rounds,
    uint64_t seed) {
  if (seats < 2) return absl::InvalidArgumentError("a match needs 2 seats");
  if (num_bots < seats) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the game seats ", seats, " bots per match but only ", num_bots,
        " are entered"));
  }
  if (rounds < 1) return absl::InvalidArgumentError("rounds must be >= 1");
  std::vector<std::vector<int>> tables;
  std::vector<int> prefix;
  if (format == v1::GAUNTLET) {
    prefix.push_back(0);
    Subsets(num_bots, seats, 1, prefix, tables);
  } else if (format == v1::ROUND_ROBIN ||
             format == v1::TOURNAMENT_FORMAT_UNSPECIFIED) {
    Subsets(num_bots, seats, 0, prefix, tables);
  } else {
    return absl::InvalidArgumentError("unknown tournament format");
  }
  std::vector<ScheduledMatch> schedule;
  for (int round = 0; round < rounds; ++round) {
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

}  // namespace pyramid
