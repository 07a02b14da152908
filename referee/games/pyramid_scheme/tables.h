// Pyramid Scheme's card list and supply (the "edition"): every number,
// colour, condition and reward of the cards, and the counts of Police and
// tokens. The rules code reads this table and nothing else about cards, so
// another edition can replace it. The reference edition is the one defined
// on docs/rules/pyramid_scheme.md.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_TABLES_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_TABLES_H_

#include <array>
#include <vector>

#include "pyramid/referee/v1/pyramid_scheme.pb.h"

namespace pyramid::scheme {

namespace v1 = ::pyramid::referee::v1;

inline constexpr int kNumColours = 4;
// Colour of the Founder and of Police (Victims have 0..3).
inline constexpr int kNoColour = -1;

// One card face. For Police only `number` matters.
struct CardSpec {
  int number = 0;
  int colour = kNoColour;  // 0..3 = green, blue, pink, yellow.
  // The condition: need[c] distinct Victims of colour c directly below, plus
  // need_any further distinct Victims of any colour.
  std::array<int, kNumColours> need = {};
  int need_any = 0;
  v1::PssReward reward = v1::PSS_NO_REWARD;
};

// Whether a flip granting `reward` asks the flipping seat for a target (a
// decision; lost when there is none), or is resolved at once: TAKE_RESET,
// TAKE_BYPASS and HAND_LIMIT_1 (and no reward at all). The engine grants
// rewards by it, and the game's bound on its moves counts by it.
inline bool RewardAsksATarget(v1::PssReward reward) {
  switch (reward) {
    case v1::PSS_NO_REWARD:
    case v1::PSS_TAKE_RESET:
    case v1::PSS_TAKE_BYPASS:
    case v1::PSS_HAND_LIMIT_1:
      return false;
    default:
      return true;
  }
}

// A whole edition: the cards, the supply and the sizes of setup.
struct Edition {
  std::vector<CardSpec> victims;  // Indexed by Victim id.
  CardSpec founder;
  CardSpec police;
  int num_police = 0;

  // Token supply (all tokens of the game).
  int reset_tokens = 0;
  int bypass_tokens = 0;
  int capacity_2_tokens = 0;
  int capacity_3_tokens = 0;

  // Setup and turn sizes.
  int starting_reset_tokens = 0;  // Per seat, out of reset_tokens.
  int deal_size = 0;              // Hand cards per seat at setup.
  int display_slots = 0;
  int base_hand_limit = 0;
  int num_goals = 0;  // Goal ids 0..num_goals-1.
  int goals_in_play = 0;

  // The cards as observations show them (built with the edition).
  v1::PssCardTable card_table;

  // Card ids: Victims, then the Founder, then the Police.
  int num_victims() const { return static_cast<int>(victims.size()); }
  int founder_id() const { return num_victims(); }
  int first_police_id() const { return num_victims() + 1; }
  int num_card_ids() const { return first_police_id() + num_police; }

  bool IsVictim(int card) const { return card >= 0 && card < num_victims(); }
  bool IsFounder(int card) const { return card == founder_id(); }
  bool IsPolice(int card) const {
    return card >= first_police_id() && card < num_card_ids();
  }
  // The face of any card id. Requires 0 <= card < num_card_ids().
  const CardSpec& Spec(int card) const {
    if (IsVictim(card)) return victims[card];
    return IsFounder(card) ? founder : police;
  }
};

// The rules page's reference edition: 64 Victims (16 rows x 4 colours),
// Founder 12 needing one Victim of each colour (reward TAKE_RESET), 18 Police
// numbered 3, tokens 10 reset / 4 bypass / 3 capacity +2 / 3 capacity +3.
const Edition& ReferenceEdition();

// Writes the card's face, as messages show it, into `face` (in place, so
// that a face inside an arena message costs no temporary and no copy).
void CardFace(const Edition& edition, int card, v1::PssCard& face);

// Every card's face, condition and reward, indexed by card id.
v1::PssCardTable MakeCardTable(const Edition& edition);

}  // namespace pyramid::scheme

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_TABLES_H_
