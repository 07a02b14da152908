#include "tools/tournament/remote_match_bounds.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "referee/games/description.h"
#include "referee/games/registry.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// a * b, or the largest uint64_t when that is beyond it.
uint64_t SaturatingProduct(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product)
             ? std::numeric_limits<uint64_t>::max()
             : product;
}

}  // namespace

std::optional<uint64_t> MaxMoves(const v1::GameConfig& game, int seats) {
  // The game's own bound (GameDescription::max_moves, which says why it
  // holds) under the options resolved as the referee resolves them.
  const GameDescription* description = FindGame(game.game());
  if (description == nullptr || description->max_moves == nullptr ||
      seats < description->min_seats || seats > description->max_seats) {
    return std::nullopt;
  }
  const absl::StatusOr<OptionValues> options =
      ResolveOptions(*description, game);
  if (!options.ok()) return std::nullopt;
  return description->max_moves(*options, seats);
}

uint64_t MaxWatchEvents(uint64_t moves, int seats) {
  const uint64_t per_decision =
      2 + 2 * static_cast<uint64_t>(std::max(seats, 0));
  const uint64_t decisions =
      moves == std::numeric_limits<uint64_t>::max() ? moves : moves + 1;
  const uint64_t events = SaturatingProduct(decisions, per_decision);
  // The match, its snapshot and the outcome; then twice all of it.
  return SaturatingProduct(
      events > std::numeric_limits<uint64_t>::max() - 3 ? events : events + 3,
      2);
}

absl::Duration SilenceLimit(const v1::ClockSettings& clocks, uint64_t decision,
                            absl::Duration margin) {
  if (clocks.commit_timeout_ms() == 0 || clocks.reveal_timeout_ms() == 0) {
    return absl::InfiniteDuration();
  }
  return CommitTimeout(clocks) + BankAt(clocks, decision) +
         absl::Milliseconds(clocks.reveal_timeout_ms()) + margin;
}

absl::Duration CommitTimeout(const v1::ClockSettings& clocks) {
  return absl::Milliseconds(
      std::max(clocks.commit_timeout_ms(), clocks.seed_timeout_ms()));
}

absl::Duration BankAt(const v1::ClockSettings& clocks, uint64_t decision) {
  const int64_t earned =
      static_cast<int64_t>(std::min<uint64_t>(
          decision, std::numeric_limits<int64_t>::max() - 1)) +
      1;
  return absl::Milliseconds(clocks.time_bank_ms()) +
         absl::Milliseconds(clocks.time_bank_increment_ms()) * earned;
}

std::string MatchOf(const v1::GameConfig& game, int seats) {
  return absl::StrCat("a match of ", game.game(), " for ", seats,
                      " seats under its rules and the options asked");
}

}  // namespace pyramid
