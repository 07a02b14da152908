#include "referee/games/pyramid_scheme/game.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>

#include "referee/games/pyramid_scheme/state.h"
#include "referee/games/pyramid_scheme/tables.h"

namespace pyramid::scheme {
namespace {

class PyramidSchemeGame final : public Game {
 public:
  explicit PyramidSchemeGame(const Options& options)
      : Game(Description(), options.rules_version), options_(options) {}

  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    return std::make_unique<PyramidSchemeState>(ReferenceEdition(), options_,
                                                num_seats, std::move(stream));
  }

 private:
  Options options_;
};

absl::StatusOr<std::unique_ptr<Game>> Make(const OptionValues& values,
                                           uint32_t rules_version) {
  return std::make_unique<PyramidSchemeGame>(ToOptions(values, rules_version));
}

// Whether a flip of a card of face `spec` grants a reward that asks for its
// target (the others are resolved at once or lost, without a decision), and
// whether it gives a token (TAKE_RESET, TAKE_BYPASS).
bool RewardAsks(const CardSpec& spec) { return RewardAsksATarget(spec.reward); }
bool RewardGivesToken(const CardSpec& spec) {
  return spec.reward == v1::PSS_TAKE_RESET ||
         spec.reward == v1::PSS_TAKE_BYPASS;
}

// The rules page's decisions, each bounded by the turns or by what the
// game holds only so much of (counted in the edition's card table):
// - a turn (counted as it starts; the game ends when turn max_turns ends)
//   has two actions (a take or a placement) and at most one end of turn;
// - a flip window opens only after a Victim placement and closes with one
//   `stop` at most; a Victim enters a pyramid once (it leaves one only
//   when its seat is eliminated, out of the game), so at most one stop per
//   Victim;
// - a flip in a window flips an unflipped Victim or Founder, which stays
//   flipped: at most one per Victim and per seat's Founder;
// - a reward's target is asked only after a flip (in a window or by
//   FLIP_OTHER_WITH_BONUS) of a card whose reward asks one, each card
//   flipped once (a Police flipped by FLIP_POLICE grants nothing);
// - a token use (a reset, arming a bypass) spends a token the seat holds:
//   its starting reset tokens, or one a TAKE_RESET or TAKE_BYPASS reward
//   gave it from the supply, again once per card flipped (a token spent or
//   an eliminated seat's goes back to the supply, but only such a reward
//   takes it out again);
// - a Police placement serves a Goal claim: a Goal in play is claimed once
//   (claimed stays claimed; an eliminated seat's reserved Goals reopen, not
//   its claims), and owes one Police per other seat; a Police back in the
//   supply (DISCARD_POLICE, an elimination) is placed again only for a
//   claim.
// Everything else (refills, reshuffles, claims, eliminations, lost and
// simple rewards, capacity tokens placed by their reward) is no decision.
uint64_t MaxMoves(const OptionValues& values, int num_seats) {
  const Edition& edition = ReferenceEdition();
  const uint64_t seats = static_cast<uint64_t>(std::max(num_seats, 1));
  const uint64_t victims = static_cast<uint64_t>(edition.num_victims());
  uint64_t asking = RewardAsks(edition.founder) ? seats : 0;
  uint64_t tokens =
      seats * static_cast<uint64_t>(edition.starting_reset_tokens) +
      (RewardGivesToken(edition.founder) ? seats : 0);
  for (const CardSpec& victim : edition.victims) {
    if (RewardAsks(victim)) ++asking;
    if (RewardGivesToken(victim)) ++tokens;
  }
  const uint64_t turns = values.at("max_turns");
  return 3 * turns + victims + (victims + seats) + asking + tokens +
         static_cast<uint64_t>(edition.goals_in_play) * (seats - 1);
}

}  // namespace

Options ToOptions(const OptionValues& values, uint32_t rules_version) {
  return Options{.max_turns = static_cast<int>(values.at("max_turns")),
                 .rules_version = rules_version};
}

const GameDescription& Description() {
  static const auto* const description = new GameDescription{
      .id = "pyramid_scheme",
      .title = "Pyramid Scheme",
      .score = "smart-asses at the end (0 once eliminated)",
      .min_seats = 2,
      .max_seats = 4,
      // Actions are a few small fields (docs/protocol.md, "Action size").
      .max_action_bytes = 128,
      .action_kind = v1::Action::kPyramidScheme,
      .rules_versions = {{.version = 1}},
      .options = {{.name = "max_turns",
                   .kind = OptionDescription::Kind::kUint,
                   .min = 1,
                   .max = kMaxMaxTurns,
                   .default_value = kDefaultMaxTurns,
                   .help = "the game ends when seat turn number max_turns "
                           "ends"}},
      .make = &Make,
      .max_moves = &MaxMoves,
  };
  return *description;
}

}  // namespace pyramid::scheme
