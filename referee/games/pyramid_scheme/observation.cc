// What a Pyramid Scheme seat sees: the board (every pyramid, the display,
// the deck's size and top card, the discard pile, the goals and the supply),
// the decision under way and the card table, with its own hand; the public
// view shows no hand.
#include <cstdint>
#include <optional>
#include <vector>

#include "referee/games/pyramid_scheme/state.h"

namespace pyramid::scheme {
namespace {

// `pyramid`'s cards, parents first, as a seat view shows them.
void AddPyramid(const Edition& edition, const Pyramid& pyramid,
                v1::PssSeatView& view) {
  view.mutable_pyramid()->Reserve(pyramid.size());
  for (int index = 0; index < pyramid.size(); ++index) {
    const Node& node = pyramid.node(index);
    v1::PssNode* out = view.add_pyramid();
    CardFace(edition, node.card, *out->mutable_card());
    out->set_kind(edition.IsVictim(node.card)    ? v1::PSS_VICTIM
                  : edition.IsFounder(node.card) ? v1::PSS_FOUNDER
                                                 : v1::PSS_POLICE);
    if (node.parent != kNoParent) {
      out->set_parent(static_cast<uint32_t>(node.parent));
    }
    out->set_flipped(node.flipped);
    for (int value : node.capacity_tokens) {
      out->add_capacity_tokens(static_cast<uint32_t>(value));
    }
    out->set_limit(static_cast<uint32_t>(pyramid.Limit(edition, index)));
  }
}

}  // namespace

void PyramidSchemeState::Board(v1::PssBoard& board) const {
  board.set_turn(static_cast<uint32_t>(turn_));
  board.set_max_turns(static_cast<uint32_t>(options_.max_turns));
  board.set_active_seat(static_cast<uint32_t>(active_));
  // Every repeated field is sized before it is filled: the board goes into
  // every turn's result, and growing its fields one by one showed up in
  // profiles.
  board.mutable_seats()->Reserve(num_seats());
  board.mutable_display()->Reserve(static_cast<int>(display_.size()));
  board.mutable_discard()->Reserve(static_cast<int>(discard_.size()));
  board.mutable_goals()->Reserve(static_cast<int>(goals_.size()));
  for (int s = 0; s < num_seats(); ++s) {
    const Seat& seat = seats_[s];
    v1::PssSeatView* view = board.add_seats();
    view->set_live(seat.live);
    view->set_eliminated_order(static_cast<uint32_t>(seat.eliminated_order));
    view->set_hand_size(static_cast<uint32_t>(seat.hand.size()));
    view->set_hand_limit(static_cast<uint32_t>(HandLimit(s)));
    view->set_reset_tokens(static_cast<uint32_t>(seat.reset_tokens));
    view->set_bypass_tokens(static_cast<uint32_t>(seat.bypass_tokens));
    AddPyramid(*edition_, seat.pyramid, *view);
    view->set_smart_asses(static_cast<uint32_t>(seat.pyramid.SmartAsses()));
  }
  for (int card : display_) {
    v1::PssDisplaySlot* slot = board.add_display();
    if (card != kNoCard) CardFace(*edition_, card, *slot->mutable_card());
  }
  board.set_deck_size(static_cast<uint32_t>(deck_.size()));
  if (!deck_.empty()) {
    CardFace(*edition_, deck_.front(), *board.mutable_deck_top());
  }
  for (int card : discard_) CardFace(*edition_, card, *board.add_discard());
  for (const Goal& goal : goals_) {
    v1::PssGoalView* view = board.add_goals();
    view->set_goal(static_cast<uint32_t>(goal.id));
    if (goal.claimed_by != kNoSeat) {
      view->set_claimed_by(static_cast<uint32_t>(goal.claimed_by));
    }
    if (goal.reserved_by != kNoSeat) {
      view->set_reserved_by(static_cast<uint32_t>(goal.reserved_by));
    }
  }
  board.set_out_of_game(static_cast<uint32_t>(out_of_game_.size()));
  v1::PssSupply* supply = board.mutable_supply();
  supply->set_police(static_cast<uint32_t>(PoliceInSupply()));
  supply->set_reset_tokens(static_cast<uint32_t>(supply_.reset_tokens));
  supply->set_bypass_tokens(static_cast<uint32_t>(supply_.bypass_tokens));
  supply->set_capacity_2_tokens(
      static_cast<uint32_t>(supply_.capacity_2_tokens));
  supply->set_capacity_3_tokens(
      static_cast<uint32_t>(supply_.capacity_3_tokens));
}

v1::PssDecision PyramidSchemeState::Decision() const {
  v1::PssDecision decision;
  switch (phase_) {
    case Phase::kAction:
      decision.set_phase(v1::PSS_PHASE_ACTION);
      break;
    case Phase::kFlip:
      decision.set_phase(v1::PSS_PHASE_FLIP_WINDOW);
      break;
    case Phase::kReward:
      decision.set_phase(v1::PSS_PHASE_REWARD);
      decision.set_reward(reward_);
      decision.set_reward_card(static_cast<uint32_t>(reward_card_));
      break;
    case Phase::kPolice:
      decision.set_phase(v1::PSS_PHASE_POLICE);
      decision.set_police_goal(static_cast<uint32_t>(police_due_.front().goal));
      break;
    case Phase::kEndTurn:
      decision.set_phase(v1::PSS_PHASE_END_OF_TURN);
      break;
    case Phase::kOver:
      decision.set_phase(v1::PSS_PHASE_GAME_OVER);
      break;
  }
  if (phase_ != Phase::kOver) {
    decision.set_seat(static_cast<uint32_t>(ActingSeat()));
  }
  decision.set_active_seat(static_cast<uint32_t>(active_));
  decision.set_actions_done(static_cast<uint32_t>(actions_done_));
  decision.set_bypass_armed(bypass_armed_);
  return decision;
}

void PyramidSchemeState::ViewInto(std::optional<int> seat,
                                  v1::Observation& observation) const {
  v1::PyramidSchemeObservation* game = observation.mutable_pyramid_scheme();
  Board(*game->mutable_board());
  *game->mutable_decision() = Decision();
  if (seat.has_value()) {
    for (int card : seats_[*seat].hand) {
      CardFace(*edition_, card, *game->add_hand());
    }
  }
  *game->mutable_cards() = edition_->card_table;
}

}  // namespace pyramid::scheme
