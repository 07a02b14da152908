#include "referee/games/pyramid_scheme/tables.h"

#include <array>
#include <cstdint>

namespace pyramid::scheme {
namespace {

// One row of the rules page's Victim table, for a Victim of colour c: its
// number, the colour offsets k of its condition (one Victim of colour
// (c + k) mod 4 each), its count of `any` entries, and its reward.
struct Row {
  int number;
  std::array<int, 3> offsets;
  int num_offsets;
  int any;
  v1::PssReward reward;
};

// The rules page's table, rows 0..15. THE card list of the reference
// edition.
inline constexpr std::array<Row, 16> kRows = {{
    {1, {1}, 1, 0, v1::PSS_NO_REWARD},
    {1, {2}, 1, 0, v1::PSS_NO_REWARD},
    {1, {3}, 1, 0, v1::PSS_NO_REWARD},
    {1, {}, 0, 1, v1::PSS_NO_REWARD},
    {1, {}, 0, 1, v1::PSS_NO_REWARD},
    {2, {1}, 1, 1, v1::PSS_DISCARD_HAND},
    {2, {2}, 1, 0, v1::PSS_FLIP_OTHER},
    {2, {3}, 1, 1, v1::PSS_TAKE_RESET},
    {2, {}, 0, 2, v1::PSS_CAPACITY_2},
    {3, {1, 2}, 2, 0, v1::PSS_HAND_LIMIT_1},
    {3, {3}, 1, 2, v1::PSS_RESERVE_GOAL},
    {3, {2}, 1, 1, v1::PSS_TAKE_BYPASS},
    {4, {1, 3}, 2, 1, v1::PSS_CAPACITY_3},
    {4, {2}, 1, 1, v1::PSS_FLIP_POLICE},
    {5, {3}, 1, 2, v1::PSS_FLIP_OTHER_WITH_BONUS},
    {5, {1, 2}, 2, 1, v1::PSS_DISCARD_POLICE},
}};

Edition BuildReferenceEdition() {
  Edition edition;
  for (int colour = 0; colour < kNumColours; ++colour) {
    for (const Row& row : kRows) {
      CardSpec card;
      card.number = row.number;
      card.colour = colour;
      for (int i = 0; i < row.num_offsets; ++i) {
        ++card.need[(colour + row.offsets[i]) % kNumColours];
      }
      card.need_any = row.any;
      card.reward = row.reward;
      edition.victims.push_back(card);
    }
  }
  edition.founder.number = 12;
  edition.founder.need = {1, 1, 1, 1};
  edition.founder.reward = v1::PSS_TAKE_RESET;
  edition.police.number = 3;
  edition.num_police = 18;
  edition.reset_tokens = 10;
  edition.bypass_tokens = 4;
  edition.capacity_2_tokens = 3;
  edition.capacity_3_tokens = 3;
  edition.starting_reset_tokens = 1;
  edition.deal_size = 2;
  edition.display_slots = 3;
  edition.base_hand_limit = 3;
  edition.num_goals = 18;
  edition.goals_in_play = 6;
  edition.card_table = MakeCardTable(edition);
  return edition;
}

v1::PssColour ColourProto(int colour) {
  return colour == kNoColour ? v1::PSS_NO_COLOUR
                             : static_cast<v1::PssColour>(colour + 1);
}

}  // namespace

const Edition& ReferenceEdition() {
  static const Edition* const edition = new Edition(BuildReferenceEdition());
  return *edition;
}

void CardFace(const Edition& edition, int card, v1::PssCard& face) {
  const CardSpec& spec = edition.Spec(card);
  face.set_id(static_cast<uint32_t>(card));
  face.set_colour(ColourProto(spec.colour));
  face.set_number(static_cast<uint32_t>(spec.number));
}

v1::PssCardTable MakeCardTable(const Edition& edition) {
  v1::PssCardTable table;
  for (int card = 0; card < edition.num_card_ids(); ++card) {
    const CardSpec& spec = edition.Spec(card);
    table.add_colours(ColourProto(spec.colour));
    table.add_numbers(static_cast<uint32_t>(spec.number));
    table.add_rewards(spec.reward);
    for (int colour = 0; colour < kNumColours; ++colour) {
      table.add_condition_needs(static_cast<uint32_t>(spec.need[colour]));
    }
    table.add_condition_any(static_cast<uint32_t>(spec.need_any));
  }
  return table;
}

}  // namespace pyramid::scheme
