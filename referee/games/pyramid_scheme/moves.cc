// Applying a Pyramid Scheme decision (DoApply, one transition per kind)
// and every forced step that follows it up to the next decision: the flow of
// a turn, the flip window and rewards, goal claims and the Police they owe,
// refills and reshuffles, eliminations and the end of the game.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "referee/games/pyramid_scheme/board.h"
#include "referee/games/pyramid_scheme/state.h"
#include "referee/games/pyramid_scheme/tables.h"

namespace pyramid::scheme {
namespace {

void InsertSorted(std::vector<int>& items, int item) {
  items.insert(std::upper_bound(items.begin(), items.end(), item), item);
}

void Erase(std::vector<int>& items, int item) {
  items.erase(std::find(items.begin(), items.end(), item));
}

}  // namespace

// ---------------------------------------------------------------------------
// Applying a decision.

void PyramidSchemeState::DoApply(absl::Span<const SeatAction> actions,
                                 v1::Result& result) {
  const int seat = actions[0].seat;
  v1::PyramidSchemeResult* game = result.mutable_pyramid_scheme();
  game->set_seat(static_cast<uint32_t>(seat));
  events_ = game->mutable_events();
  const v1::PyramidSchemeAction& action = actions[0].action.pyramid_scheme();
  switch (action.decision_case()) {
    case v1::PyramidSchemeAction::kTake:
      ApplyTake(static_cast<int>(action.take().slot()));
      break;
    case v1::PyramidSchemeAction::kPlace:
      ApplyPlace(static_cast<int>(action.place().card()),
                 static_cast<int>(action.place().parent()));
      break;
    case v1::PyramidSchemeAction::kUseReset:
      ApplyUseReset();
      break;
    case v1::PyramidSchemeAction::kArmBypass:
      ApplyArmBypass();
      break;
    case v1::PyramidSchemeAction::kFlip:
      ApplyFlip(static_cast<int>(action.flip().card()));
      break;
    case v1::PyramidSchemeAction::kStopFlipping:
      FinishAction();
      break;
    case v1::PyramidSchemeAction::kRewardTarget:
    case v1::PyramidSchemeAction::kDiscardHand:
    case v1::PyramidSchemeAction::kReserveGoal:
      ApplyRewardTarget(action);
      break;
    case v1::PyramidSchemeAction::kPlacePolice:
      ApplyPlacePolice(static_cast<int>(action.place_police().parent()));
      break;
    case v1::PyramidSchemeAction::kEndTurn:
      EndTurn();
      break;
    case v1::PyramidSchemeAction::DECISION_NOT_SET:
      break;
  }
  events_ = nullptr;
}

void PyramidSchemeState::ApplyTake(int slot) {
  Seat& seat = seats_[active_];
  const int card = display_[slot];
  InsertSorted(seat.hand, card);
  display_[slot] = kNoCard;
  v1::PssTook* took = AddEvent().mutable_took();
  took->set_slot(static_cast<uint32_t>(slot));
  CardFace(*edition_, card, *took->mutable_card());
  if (!FillSlot(slot)) return;
  ClaimGoals();
  FinishAction();
}

void PyramidSchemeState::ApplyPlace(int card, int parent) {
  Seat& seat = seats_[active_];
  Erase(seat.hand, card);
  seat.pyramid.Add(card, parent);
  v1::PssPlaced* placed = AddEvent().mutable_placed();
  CardFace(*edition_, card, *placed->mutable_card());
  placed->set_parent(static_cast<uint32_t>(parent));
  placed->set_bypass_used(bypass_armed_);
  bypass_armed_ = false;
  ClaimGoals();
  ContinueFlipWindow();
}

void PyramidSchemeState::ApplyUseReset() {
  const Resume resume = phase_ == Phase::kEndTurn ? Resume::kAfterEndOfTurnReset
                                                  : Resume::kAfterTokenUse;
  --seats_[active_].reset_tokens;
  ++supply_.reset_tokens;
  AddEvent().mutable_token_used()->set_token(v1::PSS_RESET_TOKEN);
  std::vector<int> discarded;
  for (int& card : display_) {
    if (card != kNoCard) discarded.push_back(card);
    card = kNoCard;
  }
  Discard(discarded);
  for (int slot = 0; slot < static_cast<int>(display_.size()); ++slot) {
    if (!FillSlot(slot)) return;
  }
  ClaimGoals();
  ServePolice(resume);
}

void PyramidSchemeState::ApplyArmBypass() {
  --seats_[active_].bypass_tokens;
  ++supply_.bypass_tokens;
  bypass_armed_ = true;
  AddEvent().mutable_token_used()->set_token(v1::PSS_BYPASS_TOKEN);
  ClaimGoals();
  ServePolice(Resume::kAfterTokenUse);
}

void PyramidSchemeState::ApplyFlip(int card) {
  FlipNode(seats_[active_].pyramid.Find(card), v1::PSS_NO_REWARD);
  ClaimGoals();
  GrantReward(card);
}

void PyramidSchemeState::ApplyRewardTarget(
    const v1::PyramidSchemeAction& action) {
  const v1::PssReward reward = reward_;
  const int source = reward_card_;
  reward_ = v1::PSS_NO_REWARD;
  reward_card_ = kNoCard;
  v1::PssRewardResolved* resolved = AddEvent().mutable_reward();
  resolved->set_card(static_cast<uint32_t>(source));
  resolved->set_reward(reward);
  Seat& seat = seats_[active_];
  Pyramid& pyramid = seat.pyramid;
  const int target = static_cast<int>(action.reward_target().card());
  switch (reward) {
    case v1::PSS_DISCARD_HAND: {
      std::vector<int> cards(action.discard_hand().cards().begin(),
                             action.discard_hand().cards().end());
      for (int card : cards) Erase(seat.hand, card);
      Discard(cards);
      break;
    }
    case v1::PSS_FLIP_OTHER:
    case v1::PSS_FLIP_POLICE:
      FlipNode(pyramid.Find(target), reward);
      break;
    case v1::PSS_FLIP_OTHER_WITH_BONUS:
      FlipNode(pyramid.Find(target), reward);
      ClaimGoals();
      GrantReward(target);  // Rewards chain.
      return;
    case v1::PSS_CAPACITY_2:
    case v1::PSS_CAPACITY_3: {
      const int value = reward == v1::PSS_CAPACITY_2 ? 2 : 3;
      --(value == 2 ? supply_.capacity_2_tokens : supply_.capacity_3_tokens);
      pyramid.mutable_node(pyramid.Find(target))
          .capacity_tokens.push_back(value);
      v1::PssCapacityPlaced* placed = AddEvent().mutable_capacity_placed();
      placed->set_card(static_cast<uint32_t>(target));
      placed->set_value(static_cast<uint32_t>(value));
      break;
    }
    case v1::PSS_RESERVE_GOAL: {
      const int id = static_cast<int>(action.reserve_goal().goal());
      for (Goal& goal : goals_) {
        if (goal.id == id) goal.reserved_by = active_;
      }
      AddEvent().mutable_goal_reserved()->set_goal(static_cast<uint32_t>(id));
      break;
    }
    case v1::PSS_DISCARD_POLICE: {
      const int index = pyramid.Find(target);
      const Node& node = pyramid.node(index);
      for (int value : node.capacity_tokens) {
        ++(value == 2 ? supply_.capacity_2_tokens : supply_.capacity_3_tokens);
      }
      v1::PssPoliceRemoved* removed = AddEvent().mutable_police_removed();
      removed->set_card(static_cast<uint32_t>(target));
      removed->set_tokens_returned(
          static_cast<uint32_t>(node.capacity_tokens.size()));
      supply_.police[target - edition_->first_police_id()] = true;
      pyramid.Remove(index);
      break;
    }
    default:
      break;
  }
  ClaimGoals();
  ContinueFlipWindow();
}

void PyramidSchemeState::ApplyPlacePolice(int parent) {
  const PoliceDue due = police_due_.front();
  police_due_.pop_front();
  const auto free =
      std::find(supply_.police.begin(), supply_.police.end(), true);
  *free = false;
  const int police = edition_->first_police_id() +
                     static_cast<int>(free - supply_.police.begin());
  seats_[due.seat].pyramid.Add(police, parent);
  v1::PssPolicePlaced* placed = AddEvent().mutable_police_placed();
  placed->set_seat(static_cast<uint32_t>(due.seat));
  placed->set_police(static_cast<uint32_t>(police));
  placed->set_parent(static_cast<uint32_t>(parent));
  placed->set_goal(static_cast<uint32_t>(due.goal));
  AdvancePolice();
}

// ---------------------------------------------------------------------------
// The flow of a turn.

void PyramidSchemeState::StartTurn(int seat) {
  ++turn_;
  active_ = seat;
  actions_done_ = 0;
  bypass_armed_ = false;
  v1::PssTurnStarted* started = AddEvent().mutable_turn_started();
  started->set_seat(static_cast<uint32_t>(seat));
  started->set_turn(static_cast<uint32_t>(turn_));
  EnterAction();
}

// The active seat owes an action; it crumbles if it has none.
void PyramidSchemeState::EnterAction() {
  phase_ = Phase::kAction;
  if (HasOwedAction()) return;
  Eliminate(active_, v1::PSS_NO_LEGAL_ACTION);
  if (LiveSeats() == 1) {
    EndGame(v1::PSS_LAST_SEAT_STANDING);
    return;
  }
  EndTurn();
}

void PyramidSchemeState::EnterEndOfTurn() {
  if (seats_[active_].reset_tokens > 0) {
    phase_ = Phase::kEndTurn;
    return;
  }
  EndTurn();
}

void PyramidSchemeState::EndTurn() {
  bypass_armed_ = false;  // An unused armed bypass is wasted.
  v1::PssTurnEnded* ended = AddEvent().mutable_turn_ended();
  ended->set_seat(static_cast<uint32_t>(active_));
  ended->set_turn(static_cast<uint32_t>(turn_));
  Board(*ended->mutable_board());
  if (turn_ >= options_.max_turns) {
    EndGame(v1::PSS_TURN_LIMIT);
    return;
  }
  int next = active_;
  do {
    next = (next + 1) % num_seats();
  } while (!seats_[next].live);
  StartTurn(next);
}

void PyramidSchemeState::FinishAction() {
  ++actions_done_;
  ServePolice(Resume::kAfterAction);
}

// Queues the Police owed for the claims of the action or token use just
// completed: per goal in claim order, every other seat in seat order after
// the active seat.
void PyramidSchemeState::ServePolice(Resume resume) {
  resume_ = resume;
  for (int goal : unserved_claims_) {
    for (int k = 1; k < num_seats(); ++k) {
      police_due_.push_back(
          PoliceDue{.goal = goal, .seat = (active_ + k) % num_seats()});
    }
  }
  unserved_claims_.clear();
  AdvancePolice();
}

void PyramidSchemeState::AdvancePolice() {
  while (!police_due_.empty()) {
    const PoliceDue due = police_due_.front();
    if (!seats_[due.seat].live) {
      police_due_.pop_front();
      continue;
    }
    if (PoliceParents(due.seat).empty()) {
      police_due_.pop_front();
      Eliminate(due.seat, v1::PSS_NO_POLICE_PLACEMENT);
      if (LiveSeats() == 1) {
        EndGame(v1::PSS_LAST_SEAT_STANDING);
        return;
      }
      continue;
    }
    phase_ = Phase::kPolice;
    return;
  }
  switch (resume_) {
    case Resume::kAfterAction:
      if (actions_done_ >= 2) {
        EnterEndOfTurn();
      } else {
        EnterAction();
      }
      return;
    case Resume::kAfterTokenUse:
      EnterAction();
      return;
    case Resume::kAfterEndOfTurnReset:
      EnterEndOfTurn();
      return;
  }
}

// After a placement or a resolved reward: the window stays (or becomes)
// open while some card qualifies; otherwise the action is complete.
void PyramidSchemeState::ContinueFlipWindow() {
  if (seats_[active_].pyramid.AnyQualifying(*edition_)) {
    phase_ = Phase::kFlip;
    return;
  }
  FinishAction();
}

// `card` was just flipped with its reward: resolve it at once, or ask for
// its target.
void PyramidSchemeState::GrantReward(int card) {
  const v1::PssReward reward = edition_->Spec(card).reward;
  if (reward == v1::PSS_NO_REWARD) {
    ContinueFlipWindow();
    return;
  }
  if (!RewardAsksATarget(reward)) {
    ResolveSimpleReward(card, reward);
    ClaimGoals();
    ContinueFlipWindow();
    return;
  }
  reward_ = reward;
  reward_card_ = card;
  if (!RewardTargets().empty()) {
    phase_ = Phase::kReward;
    return;
  }
  reward_ = v1::PSS_NO_REWARD;
  reward_card_ = kNoCard;
  v1::PssRewardResolved* lost = AddEvent().mutable_reward();
  lost->set_card(static_cast<uint32_t>(card));
  lost->set_reward(reward);
  lost->set_lost(true);
  ClaimGoals();
  ContinueFlipWindow();
}

void PyramidSchemeState::ResolveSimpleReward(int card, v1::PssReward reward) {
  Seat& seat = seats_[active_];
  v1::PssRewardResolved* resolved = AddEvent().mutable_reward();
  resolved->set_card(static_cast<uint32_t>(card));
  resolved->set_reward(reward);
  if (reward == v1::PSS_HAND_LIMIT_1) {
    ++seat.hand_limit_bonus;
    AddEvent().mutable_hand_limit_raised()->set_hand_limit(
        static_cast<uint32_t>(HandLimit(active_)));
    return;
  }
  const bool reset = reward == v1::PSS_TAKE_RESET;
  int& supply = reset ? supply_.reset_tokens : supply_.bypass_tokens;
  if (supply == 0) {
    resolved->set_lost(true);
    return;
  }
  --supply;
  ++(reset ? seat.reset_tokens : seat.bypass_tokens);
  AddEvent().mutable_token_gained()->set_token(reset ? v1::PSS_RESET_TOKEN
                                                     : v1::PSS_BYPASS_TOKEN);
}

// Every open Goal the active seat satisfies and no other seat reserved is
// claimed, in Goal-id order.
void PyramidSchemeState::ClaimGoals() {
  const Seat& seat = seats_[active_];
  const GoalCheck check(*edition_, seat.pyramid, seat.reset_tokens);
  for (Goal& goal : goals_) {
    if (goal.claimed_by != kNoSeat) continue;
    if (goal.reserved_by != kNoSeat && goal.reserved_by != active_) continue;
    if (!check.Satisfied(goal.id)) continue;
    goal.claimed_by = active_;
    goal.reserved_by = kNoSeat;
    v1::PssGoalClaimed* claimed = AddEvent().mutable_goal_claimed();
    claimed->set_goal(static_cast<uint32_t>(goal.id));
    claimed->set_seat(static_cast<uint32_t>(active_));
    unserved_claims_.push_back(goal.id);
  }
}

void PyramidSchemeState::Eliminate(int seat_index,
                                   v1::PssEliminationReason reason) {
  v1::PssEliminated* eliminated = AddEvent().mutable_eliminated();
  eliminated->set_seat(static_cast<uint32_t>(seat_index));
  eliminated->set_reason(reason);
  Seat& seat = seats_[seat_index];
  seat.live = false;
  seat.eliminated_order = ++eliminations_;
  for (const Node& node : seat.pyramid.nodes()) {
    if (edition_->IsVictim(node.card)) out_of_game_.push_back(node.card);
    if (edition_->IsPolice(node.card)) {
      supply_.police[node.card - edition_->first_police_id()] = true;
    }
    for (int value : node.capacity_tokens) {
      ++(value == 2 ? supply_.capacity_2_tokens : supply_.capacity_3_tokens);
    }
  }
  seat.pyramid.Clear();
  for (int card : seat.hand) out_of_game_.push_back(card);
  seat.hand.clear();
  supply_.reset_tokens += seat.reset_tokens;
  supply_.bypass_tokens += seat.bypass_tokens;
  seat.reset_tokens = 0;
  seat.bypass_tokens = 0;
  for (Goal& goal : goals_) {
    if (goal.reserved_by == seat_index) goal.reserved_by = kNoSeat;
  }
  if (seat_index == active_) bypass_armed_ = false;
}

void PyramidSchemeState::EndGame(v1::PssEndReason reason) {
  phase_ = Phase::kOver;
  end_reason_ = reason;
  unserved_claims_.clear();
  police_due_.clear();
  reward_ = v1::PSS_NO_REWARD;
  reward_card_ = kNoCard;
  v1::PssGameEnded* ended = AddEvent().mutable_game_ended();
  ended->set_reason(reason);
  Board(*ended->mutable_board());
}

// The rules page's "Deck and discard": an empty deck is rebuilt from the
// shuffled discard pile (oldest first before the shuffle; position 0 of the
// shuffled list is the new top card).
bool PyramidSchemeState::FillSlot(int slot) {
  if (deck_.empty()) {
    if (discard_.empty()) {
      EndGame(v1::PSS_DECK_EXHAUSTED);
      return false;
    }
    deck_ = std::move(discard_);
    discard_.clear();
    stream_.Shuffle(deck_);
    AddEvent().mutable_reshuffled()->set_deck_size(
        static_cast<uint32_t>(deck_.size()));
  }
  display_[slot] = deck_.front();
  deck_.erase(deck_.begin());
  v1::PssSlotFilled* filled = AddEvent().mutable_slot_filled();
  filled->set_slot(static_cast<uint32_t>(slot));
  CardFace(*edition_, display_[slot], *filled->mutable_card());
  return true;
}

void PyramidSchemeState::Discard(const std::vector<int>& cards) {
  if (cards.empty()) return;
  v1::PssDiscarded* discarded = AddEvent().mutable_discarded();
  for (int card : cards) {
    discard_.push_back(card);
    CardFace(*edition_, card, *discarded->add_cards());
  }
}

void PyramidSchemeState::FlipNode(int index, v1::PssReward by_reward) {
  Node& node = seats_[active_].pyramid.mutable_node(index);
  node.flipped = true;
  v1::PssFlipped* flipped = AddEvent().mutable_flipped();
  CardFace(*edition_, node.card, *flipped->mutable_card());
  flipped->set_by_reward(by_reward);
}

}  // namespace pyramid::scheme
