// Validation, the legal actions, the default actions and applying each
// action of Pyramid Scheme's state (PyramidSchemeState members).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "referee/games/pyramid_scheme/state.h"

namespace pyramid::scheme {
namespace {

bool Contains(const std::vector<int>& items, int item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

void InsertSorted(std::vector<int>& items, int item) {
  items.insert(std::upper_bound(items.begin(), items.end(), item), item);
}

void Erase(std::vector<int>& items, int item) {
  items.erase(std::find(items.begin(), items.end(), item));
}

v1::Action Wrap(v1::PyramidSchemeAction action) {
  v1::Action wrapped;
  *wrapped.mutable_pyramid_scheme() = std::move(action);
  return wrapped;
}

v1::PyramidSchemeAction TakeAction(int slot) {
  v1::PyramidSchemeAction action;
  action.mutable_take()->set_slot(static_cast<uint32_t>(slot));
  return action;
}

v1::PyramidSchemeAction PlaceAction(int card, int parent) {
  v1::PyramidSchemeAction action;
  action.mutable_place()->set_card(static_cast<uint32_t>(card));
  action.mutable_place()->set_parent(static_cast<uint32_t>(parent));
  return action;
}

v1::PyramidSchemeAction TargetAction(v1::PssReward reward, int target) {
  v1::PyramidSchemeAction action;
  if (reward == v1::PSS_RESERVE_GOAL) {
    action.mutable_reserve_goal()->set_goal(static_cast<uint32_t>(target));
  } else {
    action.mutable_reward_target()->set_card(static_cast<uint32_t>(target));
  }
  return action;
}

v1::PyramidSchemeAction PlacePoliceAction(int parent) {
  v1::PyramidSchemeAction action;
  action.mutable_place_police()->set_parent(static_cast<uint32_t>(parent));
  return action;
}

v1::PyramidSchemeAction UseResetAction() {
  v1::PyramidSchemeAction action;
  action.mutable_use_reset();
  return action;
}

v1::PyramidSchemeAction ArmBypassAction() {
  v1::PyramidSchemeAction action;
  action.mutable_arm_bypass();
  return action;
}

v1::PyramidSchemeAction FlipAction(int card) {
  v1::PyramidSchemeAction action;
  action.mutable_flip()->set_card(static_cast<uint32_t>(card));
  return action;
}

v1::PyramidSchemeAction StopFlippingAction() {
  v1::PyramidSchemeAction action;
  action.mutable_stop_flipping();
  return action;
}

// DISCARD_HAND of the hand cards whose positions are set in `mask`.
v1::PyramidSchemeAction DiscardAction(const std::vector<int>& hand,
                                      uint32_t mask) {
  v1::PyramidSchemeAction action;
  v1::PssDiscardHand* discard = action.mutable_discard_hand();
  for (size_t i = 0; i < hand.size(); ++i) {
    if (mask & (1u << i)) discard->add_cards(static_cast<uint32_t>(hand[i]));
  }
  return action;
}

v1::PyramidSchemeAction EndTurnAction() {
  v1::PyramidSchemeAction action;
  action.mutable_end_turn();
  return action;
}

bool IsCardTargetReward(v1::PssReward reward) {
  switch (reward) {
    case v1::PSS_FLIP_OTHER:
    case v1::PSS_FLIP_OTHER_WITH_BONUS:
    case v1::PSS_CAPACITY_2:
    case v1::PSS_CAPACITY_3:
    case v1::PSS_FLIP_POLICE:
    case v1::PSS_DISCARD_POLICE:
      return true;
    default:
      return false;
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Validation and the legal actions.

absl::Status PyramidSchemeState::ValidateAction(
    int seat, const v1::Action& action) const {
  if (IsTerminal()) {
    return absl::FailedPreconditionError("pyramid_scheme: the game is over");
  }
  if (!IsActing(seat)) {
    return absl::FailedPreconditionError(
        absl::StrCat("pyramid_scheme: seat ", seat, " is not acting (seat ",
                     ActingSeat(), " is)"));
  }
  if (action.kind_case() != v1::Action::kPyramidScheme) {
    return Refuse("not a pyramid_scheme action");
  }
  return ValidateForPhase(action.pyramid_scheme());
}

absl::Status PyramidSchemeState::ValidateForPhase(
    const v1::PyramidSchemeAction& action) const {
  const Seat& seat = seats_[ActingSeat()];
  const Pyramid& pyramid = seat.pyramid;
  switch (action.decision_case()) {
    case v1::PyramidSchemeAction::kTake: {
      if (phase_ != Phase::kAction) return Refuse("no action is owed now");
      const uint32_t slot = action.take().slot();
      if (slot >= display_.size()) return Refuse("no such display slot");
      if (display_[slot] == kNoCard) return Refuse("the slot is empty");
      if (!CanTake(static_cast<int>(slot))) {
        return Refuse("the hand is at its limit");
      }
      return absl::OkStatus();
    }
    case v1::PyramidSchemeAction::kPlace: {
      if (phase_ != Phase::kAction) return Refuse("no action is owed now");
      const uint32_t card = action.place().card();
      const uint32_t parent = action.place().parent();
      if (card >= static_cast<uint32_t>(edition_->num_victims()) ||
          !Contains(seat.hand, static_cast<int>(card))) {
        return Refuse(absl::StrCat("card ", card, " is not in the hand"));
      }
      const int index =
          parent >= static_cast<uint32_t>(edition_->num_card_ids())
              ? -1
              : pyramid.Find(static_cast<int>(parent));
      if (index < 0) {
        return Refuse(absl::StrCat("card ", parent, " is not in the pyramid"));
      }
      const int number = edition_->Spec(static_cast<int>(card)).number;
      if (!pyramid.Fits(*edition_, index, number)) {
        return Refuse(absl::StrCat(
            "card ", card, " may not go below card ", parent,
            " (an unflipped Police, or its children would exceed its limit)"));
      }
      if (!CanPlace(static_cast<int>(card), static_cast<int>(parent),
                    bypass_armed_)) {
        return Refuse(absl::StrCat(
            "an unflipped Victim of card ", card,
            "'s colour lies above that place (no bypass is armed)"));
      }
      return absl::OkStatus();
    }
    case v1::PyramidSchemeAction::kUseReset:
      if (phase_ != Phase::kAction && phase_ != Phase::kEndTurn) {
        return Refuse("a token may not be used now");
      }
      if (seat.reset_tokens == 0) return Refuse("no reset token held");
      return absl::OkStatus();
    case v1::PyramidSchemeAction::kArmBypass:
      if (phase_ != Phase::kAction) return Refuse("no action is owed now");
      if (seat.bypass_tokens == 0) return Refuse("no bypass token held");
      if (bypass_armed_) return Refuse("a bypass is armed already");
      return absl::OkStatus();
    case v1::PyramidSchemeAction::kFlip: {
      if (phase_ != Phase::kFlip) return Refuse("no flip window is open");
      const uint32_t card = action.flip().card();
      const std::vector<int> qualifying = pyramid.Qualifying(*edition_);
      for (int index : qualifying) {
        if (static_cast<uint32_t>(pyramid.node(index).card) == card) {
          return absl::OkStatus();
        }
      }
      return Refuse(absl::StrCat(
          "card ", card, " is not an unflipped card whose condition is met"));
    }
    case v1::PyramidSchemeAction::kStopFlipping:
      if (phase_ != Phase::kFlip) return Refuse("no flip window is open");
      return absl::OkStatus();
    case v1::PyramidSchemeAction::kRewardTarget:
    case v1::PyramidSchemeAction::kReserveGoal: {
      if (phase_ != Phase::kReward) return Refuse("no reward is pending");
      const bool reserve =
          action.decision_case() == v1::PyramidSchemeAction::kReserveGoal;
      if (reserve != (reward_ == v1::PSS_RESERVE_GOAL) ||
          (!reserve && !IsCardTargetReward(reward_))) {
        return Refuse(absl::StrCat("the pending reward is ",
                                   v1::PssReward_Name(reward_)));
      }
      const uint32_t target = reserve ? action.reserve_goal().goal()
                                      : action.reward_target().card();
      for (int legal : RewardTargets()) {
        if (static_cast<uint32_t>(legal) == target) return absl::OkStatus();
      }
      return Refuse(absl::StrCat(target, " is not a legal target of ",
                                 v1::PssReward_Name(reward_)));
    }
    case v1::PyramidSchemeAction::kDiscardHand: {
      if (phase_ != Phase::kReward || reward_ != v1::PSS_DISCARD_HAND) {
        return Refuse("no DISCARD_HAND reward is pending");
      }
      int64_t previous = -1;
      for (uint32_t card : action.discard_hand().cards()) {
        if (static_cast<int64_t>(card) <= previous) {
          return Refuse("discarded cards must be strictly increasing");
        }
        previous = card;
        if (card >= static_cast<uint32_t>(edition_->num_victims()) ||
            !Contains(seat.hand, static_cast<int>(card))) {
          return Refuse(absl::StrCat("card ", card, " is not in the hand"));
        }
      }
      return absl::OkStatus();
    }
    case v1::PyramidSchemeAction::kPlacePolice: {
      if (phase_ != Phase::kPolice) return Refuse("no Police is owed now");
      const uint32_t parent = action.place_police().parent();
      for (int legal : PoliceParents(ActingSeat())) {
        if (static_cast<uint32_t>(legal) == parent) return absl::OkStatus();
      }
      return Refuse(absl::StrCat("a Police may not go below card ", parent));
    }
    case v1::PyramidSchemeAction::kEndTurn:
      if (phase_ != Phase::kEndTurn) return Refuse("the turn cannot end now");
      return absl::OkStatus();
    case v1::PyramidSchemeAction::DECISION_NOT_SET:
      break;
  }
  return Refuse("empty action");
}

v1::PyramidSchemeAction PyramidSchemeState::ToAction(
    const Choice& choice) const {
  switch (choice.decision) {
    case v1::PyramidSchemeAction::kTake:
      return TakeAction(choice.target);
    case v1::PyramidSchemeAction::kPlace:
      return PlaceAction(choice.target, choice.parent);
    case v1::PyramidSchemeAction::kUseReset:
      return UseResetAction();
    case v1::PyramidSchemeAction::kArmBypass:
      return ArmBypassAction();
    case v1::PyramidSchemeAction::kFlip:
      return FlipAction(choice.target);
    case v1::PyramidSchemeAction::kStopFlipping:
      return StopFlippingAction();
    case v1::PyramidSchemeAction::kRewardTarget:
      return TargetAction(reward_, choice.target);
    case v1::PyramidSchemeAction::kDiscardHand:
      return DiscardAction(seats_[ActingSeat()].hand, choice.hand_mask);
    case v1::PyramidSchemeAction::kReserveGoal:
      return TargetAction(v1::PSS_RESERVE_GOAL, choice.target);
    case v1::PyramidSchemeAction::kPlacePolice:
      return PlacePoliceAction(choice.target);
    case v1::PyramidSchemeAction::kEndTurn:
      return EndTurnAction();
    case v1::PyramidSchemeAction::DECISION_NOT_SET:
      break;
  }
  return v1::PyramidSchemeAction();
}

void PyramidSchemeState::ForEachChoice(
    absl::FunctionRef<bool(const Choice&)> visit) const {
  using Action = v1::PyramidSchemeAction;
  const Seat& seat = seats_[ActingSeat()];
  switch (phase_) {
    case Phase::kAction:
      for (int slot = 0; slot < static_cast<int>(display_.size()); ++slot) {
        if (CanTake(slot) &&
            !visit({.decision = Action::kTake, .target = slot})) {
          return;
        }
      }
      // CanPlace(card, parent) for every hand card and node, by the node's
      // index: both are known to be there.
      for (int card : seat.hand) {
        for (int index = 0; index < seat.pyramid.size(); ++index) {
          const int parent = seat.pyramid.node(index).card;
          if (seat.pyramid.CanPlaceVictim(*edition_, card, index,
                                          bypass_armed_) &&
              !visit({.decision = Action::kPlace,
                      .target = card,
                      .parent = parent})) {
            return;
          }
        }
      }
      if (seat.reset_tokens > 0 && !visit({.decision = Action::kUseReset})) {
        return;
      }
      if (seat.bypass_tokens > 0 && !bypass_armed_) {
        visit({.decision = Action::kArmBypass});
      }
      return;
    case Phase::kFlip:
      for (int index : seat.pyramid.Qualifying(*edition_)) {
        if (!visit({.decision = Action::kFlip,
                    .target = seat.pyramid.node(index).card})) {
          return;
        }
      }
      visit({.decision = Action::kStopFlipping});
      return;
    case Phase::kReward:
      if (reward_ == v1::PSS_DISCARD_HAND) {
        const int n = static_cast<int>(seat.hand.size());
        for (uint32_t mask = 0; mask < (1u << n); ++mask) {
          if (!visit({.decision = Action::kDiscardHand, .hand_mask = mask})) {
            return;
          }
        }
        return;
      }
      for (int target : RewardTargets()) {
        if (!visit({.decision = reward_ == v1::PSS_RESERVE_GOAL
                                    ? Action::kReserveGoal
                                    : Action::kRewardTarget,
                    .target = target})) {
          return;
        }
      }
      return;
    case Phase::kPolice:
      for (int parent : PoliceParents(ActingSeat())) {
        if (!visit({.decision = Action::kPlacePolice, .target = parent})) {
          return;
        }
      }
      return;
    case Phase::kEndTurn:
      if (visit({.decision = Action::kUseReset})) {
        visit({.decision = Action::kEndTurn});
      }
      return;
    case Phase::kOver:
      return;
  }
}

void PyramidSchemeState::LegalActionsInto(
    int seat, google::protobuf::RepeatedPtrField<v1::Action>& out) const {
  if (!IsActing(seat)) return;
  ForEachChoice([&](const Choice& choice) {
    *out.Add() = Wrap(ToAction(choice));
    return true;
  });
  SortByBytes(out, /*unique=*/true);
}

// Same answer as the default, without listing, serializing and sorting
// every choice, nor making a message of any but the sole one: ForEachChoice
// visits each legal action once, so there is a sole one exactly when it
// visits one (the conformance test checks this against LegalActions on
// random games).
std::optional<v1::Action> PyramidSchemeState::SoleLegalAction(int seat) const {
  if (!IsActing(seat)) return std::nullopt;
  std::optional<Choice> sole;
  bool several = false;
  ForEachChoice([&](const Choice& choice) {
    if (sole.has_value()) {
      several = true;
      return false;
    }
    sole = choice;
    return true;
  });
  if (several || !sole.has_value()) return std::nullopt;
  return Wrap(ToAction(*sole));
}

// The rules page's "Default actions".
v1::Action PyramidSchemeState::DefaultAction(int seat) const {
  if (!IsActing(seat)) return v1::Action();
  const Seat& s = seats_[seat];
  v1::PyramidSchemeAction action;
  switch (phase_) {
    case Phase::kAction: {
      for (int slot = 0; slot < static_cast<int>(display_.size()); ++slot) {
        if (CanTake(slot)) return Wrap(TakeAction(slot));
      }
      const std::vector<int> order = s.pyramid.PyramidOrder();
      for (int card : s.hand) {
        for (int index : order) {
          const int parent = s.pyramid.node(index).card;
          if (CanPlace(card, parent, bypass_armed_)) {
            return Wrap(PlaceAction(card, parent));
          }
        }
      }
      action.mutable_arm_bypass();
      break;
    }
    case Phase::kFlip:
      action.mutable_stop_flipping();
      break;
    case Phase::kReward:
      if (reward_ == v1::PSS_DISCARD_HAND) {
        action.mutable_discard_hand();
      } else {
        action = TargetAction(reward_, RewardTargets().front());
      }
      break;
    case Phase::kPolice:
      action = PlacePoliceAction(PoliceParents(seat).front());
      break;
    case Phase::kEndTurn:
      action.mutable_end_turn();
      break;
    case Phase::kOver:
      break;
  }
  return Wrap(std::move(action));
}

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

}  // namespace pyramid::scheme
