#include "referee/games/pyramid_scheme/state.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "referee/games/pyramid_scheme/board.h"
#include "referee/games/pyramid_scheme/tables.h"

namespace pyramid::scheme {
namespace {

bool Contains(const std::vector<int>& items, int item) {
  return std::find(items.begin(), items.end(), item) != items.end();
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

// Marks `card` as named by a test position: false when it is no Victim
// or was named before.
bool UseVictim(const Edition& edition, int card,
               std::vector<bool>& victim_seen) {
  if (!edition.IsVictim(card) || victim_seen[card]) return false;
  victim_seen[card] = true;
  return true;
}

}  // namespace

v1::Action TakeAction(int slot) {
  v1::Action action;
  action.mutable_pyramid_scheme()->mutable_take()->set_slot(
      static_cast<uint32_t>(slot));
  return action;
}

v1::Action PlaceAction(int card, int parent) {
  v1::Action action;
  v1::PssPlace* place = action.mutable_pyramid_scheme()->mutable_place();
  place->set_card(static_cast<uint32_t>(card));
  place->set_parent(static_cast<uint32_t>(parent));
  return action;
}

v1::Action UseResetAction() {
  v1::Action action;
  action.mutable_pyramid_scheme()->mutable_use_reset();
  return action;
}

v1::Action ArmBypassAction() {
  v1::Action action;
  action.mutable_pyramid_scheme()->mutable_arm_bypass();
  return action;
}

v1::Action FlipAction(int card) {
  v1::Action action;
  action.mutable_pyramid_scheme()->mutable_flip()->set_card(
      static_cast<uint32_t>(card));
  return action;
}

v1::Action StopFlippingAction() {
  v1::Action action;
  action.mutable_pyramid_scheme()->mutable_stop_flipping();
  return action;
}

v1::Action TargetAction(v1::PssReward reward, int target) {
  v1::Action action;
  v1::PyramidSchemeAction* scheme = action.mutable_pyramid_scheme();
  if (reward == v1::PSS_RESERVE_GOAL) {
    scheme->mutable_reserve_goal()->set_goal(static_cast<uint32_t>(target));
  } else {
    scheme->mutable_reward_target()->set_card(static_cast<uint32_t>(target));
  }
  return action;
}

v1::Action DiscardAction(const std::vector<int>& hand, uint32_t mask) {
  v1::Action action;
  v1::PssDiscardHand* discard =
      action.mutable_pyramid_scheme()->mutable_discard_hand();
  for (size_t i = 0; i < hand.size(); ++i) {
    if (mask & (1u << i)) discard->add_cards(static_cast<uint32_t>(hand[i]));
  }
  return action;
}

v1::Action PlacePoliceAction(int parent) {
  v1::Action action;
  action.mutable_pyramid_scheme()->mutable_place_police()->set_parent(
      static_cast<uint32_t>(parent));
  return action;
}

v1::Action EndTurnAction() {
  v1::Action action;
  action.mutable_pyramid_scheme()->mutable_end_turn();
  return action;
}

// ---------------------------------------------------------------------------
// Construction.

PyramidSchemeState::PyramidSchemeState(const Edition& edition,
                                       const Options& options,
                                       RandomStream stream)
    : State(Description()),
      edition_(&edition),
      options_(options),
      stream_(std::move(stream)) {
  supply_.police.assign(edition.num_police, true);
  supply_.reset_tokens = edition.reset_tokens;
  supply_.bypass_tokens = edition.bypass_tokens;
  supply_.capacity_2_tokens = edition.capacity_2_tokens;
  supply_.capacity_3_tokens = edition.capacity_3_tokens;
  display_.assign(edition.display_slots, kNoCard);
}

// The setup draws, in the rules page's order: the Victim shuffle, the Goal
// shuffle, then the starter's tie-break (only when seats tie).
PyramidSchemeState::PyramidSchemeState(const Edition& edition,
                                       const Options& options, int num_seats,
                                       RandomStream stream)
    : PyramidSchemeState(edition, options, std::move(stream)) {
  std::vector<int> cards(edition.num_victims());
  std::iota(cards.begin(), cards.end(), 0);
  stream_.Shuffle(cards);
  size_t next = 0;
  seats_.resize(num_seats);
  for (Seat& seat : seats_) {
    for (int i = 0; i < edition.deal_size; ++i) {
      seat.hand.push_back(cards[next++]);
    }
    std::sort(seat.hand.begin(), seat.hand.end());
  }
  for (int& slot : display_) slot = cards[next++];
  deck_.assign(cards.begin() + static_cast<std::ptrdiff_t>(next), cards.end());
  for (Seat& seat : seats_) {
    seat.pyramid = Pyramid::WithFounder(edition);
    seat.reset_tokens = edition.starting_reset_tokens;
    supply_.reset_tokens -= edition.starting_reset_tokens;
  }
  std::vector<int> goal_ids(edition.num_goals);
  std::iota(goal_ids.begin(), goal_ids.end(), 0);
  stream_.Shuffle(goal_ids);
  goal_ids.resize(edition.goals_in_play);
  std::sort(goal_ids.begin(), goal_ids.end());
  for (int id : goal_ids) goals_.push_back(Goal{.id = id});

  std::vector<int> sums;
  for (const Seat& seat : seats_) {
    int sum = 0;
    for (int card : seat.hand) sum += edition.Spec(card).number;
    sums.push_back(sum);
  }
  const int lowest = *std::min_element(sums.begin(), sums.end());
  std::vector<int> tied;
  for (int seat = 0; seat < num_seats; ++seat) {
    if (sums[seat] == lowest) tied.push_back(seat);
  }
  const int starter =
      tied.size() == 1 ? tied[0] : tied[stream_.Uniform(tied.size())];
  StartTurn(starter);
}

// ---------------------------------------------------------------------------
// Small queries.

int PyramidSchemeState::ActingSeat() const {
  switch (phase_) {
    case Phase::kOver:
      return kNoSeat;
    case Phase::kPolice:
      return police_due_.front().seat;
    default:
      return active_;
  }
}

std::vector<int> PyramidSchemeState::ActingSeats() const {
  if (IsTerminal()) return {};
  return {ActingSeat()};
}

int PyramidSchemeState::HandLimit(int seat) const {
  return edition_->base_hand_limit + seats_[seat].hand_limit_bonus;
}

int PyramidSchemeState::LiveSeats() const {
  int live = 0;
  for (const Seat& seat : seats_) live += seat.live ? 1 : 0;
  return live;
}

int PyramidSchemeState::PoliceInSupply() const {
  return static_cast<int>(
      std::count(supply_.police.begin(), supply_.police.end(), true));
}

bool PyramidSchemeState::CanTake(int slot) const {
  const Seat& seat = seats_[active_];
  return slot >= 0 && slot < static_cast<int>(display_.size()) &&
         display_[slot] != kNoCard &&
         static_cast<int>(seat.hand.size()) < HandLimit(active_);
}

bool PyramidSchemeState::CanPlace(int card, int parent,
                                  bool ignore_colour) const {
  const Seat& seat = seats_[active_];
  if (!Contains(seat.hand, card)) return false;
  const int index = seat.pyramid.Find(parent);
  return index >= 0 &&
         seat.pyramid.CanPlaceVictim(*edition_, card, index, ignore_colour);
}

// An owed action exists: a take, or a placement, counting those a held
// bypass would make legal.
bool PyramidSchemeState::HasOwedAction() const {
  for (int slot = 0; slot < static_cast<int>(display_.size()); ++slot) {
    if (CanTake(slot)) return true;
  }
  const Seat& seat = seats_[active_];
  const bool ignore_colour = bypass_armed_ || seat.bypass_tokens > 0;
  for (int card : seat.hand) {
    for (int index = 0; index < seat.pyramid.size(); ++index) {
      if (seat.pyramid.CanPlaceVictim(*edition_, card, index, ignore_colour)) {
        return true;
      }
    }
  }
  return false;
}

// The legal targets of the pending reward: card ids in pyramid order (hand
// order for DISCARD_HAND), or goal ids in increasing order.
std::vector<int> PyramidSchemeState::RewardTargets() const {
  const Seat& seat = seats_[active_];
  const Pyramid& pyramid = seat.pyramid;
  std::vector<int> targets;
  if (reward_ == v1::PSS_DISCARD_HAND) return seat.hand;
  if (reward_ == v1::PSS_RESERVE_GOAL) {
    for (const Goal& goal : goals_) {
      if (goal.claimed_by == kNoSeat && goal.reserved_by == kNoSeat) {
        targets.push_back(goal.id);
      }
    }
    return targets;
  }
  if ((reward_ == v1::PSS_CAPACITY_2 && supply_.capacity_2_tokens == 0) ||
      (reward_ == v1::PSS_CAPACITY_3 && supply_.capacity_3_tokens == 0)) {
    return targets;  // The supply lacks the token: the reward is lost.
  }
  for (int index : pyramid.PyramidOrder()) {
    const Node& node = pyramid.node(index);
    const bool police = edition_->IsPolice(node.card);
    bool legal = false;
    switch (reward_) {
      case v1::PSS_FLIP_OTHER:
      case v1::PSS_FLIP_OTHER_WITH_BONUS:
        legal = !police && !node.flipped;
        break;
      case v1::PSS_CAPACITY_2:
      case v1::PSS_CAPACITY_3:
        legal = !police || node.flipped;
        break;
      case v1::PSS_FLIP_POLICE:
        legal = police && !node.flipped;
        break;
      case v1::PSS_DISCARD_POLICE:
        legal = police && !pyramid.HasChildren(index);
        break;
      default:
        break;
    }
    if (legal) targets.push_back(node.card);
  }
  return targets;
}

std::vector<int> PyramidSchemeState::PoliceParents(int seat) const {
  std::vector<int> parents;
  // Never happens: at most 6 claims each owe at most 3 Police, and 18 exist.
  if (PoliceInSupply() == 0) return parents;
  const Pyramid& pyramid = seats_[seat].pyramid;
  for (int index : pyramid.PyramidOrder()) {
    if (pyramid.Fits(*edition_, index, edition_->police.number)) {
      parents.push_back(pyramid.node(index).card);
    }
  }
  return parents;
}

// ---------------------------------------------------------------------------
// Validation, the legal actions and the default actions.

absl::Status PyramidSchemeState::DoValidateAction(
    int /*seat*/, const v1::Action& wrapped) const {
  const v1::PyramidSchemeAction& action = wrapped.pyramid_scheme();
  switch (action.decision_case()) {
    case v1::PyramidSchemeAction::kTake:
      return ValidateTake(action.take().slot());
    case v1::PyramidSchemeAction::kPlace:
      return ValidatePlace(action.place().card(), action.place().parent());
    case v1::PyramidSchemeAction::kUseReset:
      return ValidateUseReset();
    case v1::PyramidSchemeAction::kArmBypass:
      return ValidateArmBypass();
    case v1::PyramidSchemeAction::kFlip:
      return ValidateFlip(action.flip().card());
    case v1::PyramidSchemeAction::kStopFlipping:
      return ValidateStopFlipping();
    case v1::PyramidSchemeAction::kRewardTarget:
    case v1::PyramidSchemeAction::kReserveGoal:
      return ValidateRewardTarget(action);
    case v1::PyramidSchemeAction::kDiscardHand:
      return ValidateDiscardHand(action.discard_hand());
    case v1::PyramidSchemeAction::kPlacePolice:
      return ValidatePlacePolice(action.place_police().parent());
    case v1::PyramidSchemeAction::kEndTurn:
      return ValidateEndTurn();
    case v1::PyramidSchemeAction::DECISION_NOT_SET:
      break;
  }
  return Refuse("empty action");
}

absl::Status PyramidSchemeState::ValidateTake(uint32_t slot) const {
  if (phase_ != Phase::kAction) return Refuse("no action is owed now");
  if (slot >= display_.size()) return Refuse("no such display slot");
  if (display_[slot] == kNoCard) return Refuse("the slot is empty");
  if (!CanTake(static_cast<int>(slot))) {
    return Refuse("the hand is at its limit");
  }
  return absl::OkStatus();
}

absl::Status PyramidSchemeState::ValidatePlace(uint32_t card,
                                               uint32_t parent) const {
  if (phase_ != Phase::kAction) return Refuse("no action is owed now");
  const Seat& seat = seats_[ActingSeat()];
  const Pyramid& pyramid = seat.pyramid;
  if (card >= static_cast<uint32_t>(edition_->num_victims()) ||
      !Contains(seat.hand, static_cast<int>(card))) {
    return Refuse(absl::StrCat("card ", card, " is not in the hand"));
  }
  const int index = parent >= static_cast<uint32_t>(edition_->num_card_ids())
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
    return Refuse(
        absl::StrCat("an unflipped Victim of card ", card,
                     "'s colour lies above that place (no bypass is armed)"));
  }
  return absl::OkStatus();
}

absl::Status PyramidSchemeState::ValidateUseReset() const {
  if (phase_ != Phase::kAction && phase_ != Phase::kEndTurn) {
    return Refuse("a token may not be used now");
  }
  if (seats_[ActingSeat()].reset_tokens == 0) {
    return Refuse("no reset token held");
  }
  return absl::OkStatus();
}

absl::Status PyramidSchemeState::ValidateArmBypass() const {
  if (phase_ != Phase::kAction) return Refuse("no action is owed now");
  if (seats_[ActingSeat()].bypass_tokens == 0) {
    return Refuse("no bypass token held");
  }
  if (bypass_armed_) return Refuse("a bypass is armed already");
  return absl::OkStatus();
}

absl::Status PyramidSchemeState::ValidateFlip(uint32_t card) const {
  if (phase_ != Phase::kFlip) return Refuse("no flip window is open");
  const Pyramid& pyramid = seats_[ActingSeat()].pyramid;
  for (int index : pyramid.Qualifying(*edition_)) {
    if (static_cast<uint32_t>(pyramid.node(index).card) == card) {
      return absl::OkStatus();
    }
  }
  return Refuse(absl::StrCat(
      "card ", card, " is not an unflipped card whose condition is met"));
}

absl::Status PyramidSchemeState::ValidateStopFlipping() const {
  if (phase_ != Phase::kFlip) return Refuse("no flip window is open");
  return absl::OkStatus();
}

absl::Status PyramidSchemeState::ValidateRewardTarget(
    const v1::PyramidSchemeAction& action) const {
  if (phase_ != Phase::kReward) return Refuse("no reward is pending");
  const bool reserve =
      action.decision_case() == v1::PyramidSchemeAction::kReserveGoal;
  if (reserve != (reward_ == v1::PSS_RESERVE_GOAL) ||
      (!reserve && !IsCardTargetReward(reward_))) {
    return Refuse(
        absl::StrCat("the pending reward is ", v1::PssReward_Name(reward_)));
  }
  const uint32_t target =
      reserve ? action.reserve_goal().goal() : action.reward_target().card();
  for (int legal : RewardTargets()) {
    if (static_cast<uint32_t>(legal) == target) return absl::OkStatus();
  }
  return Refuse(absl::StrCat(target, " is not a legal target of ",
                             v1::PssReward_Name(reward_)));
}

absl::Status PyramidSchemeState::ValidateDiscardHand(
    const v1::PssDiscardHand& discard) const {
  if (phase_ != Phase::kReward || reward_ != v1::PSS_DISCARD_HAND) {
    return Refuse("no DISCARD_HAND reward is pending");
  }
  const Seat& seat = seats_[ActingSeat()];
  int64_t previous = -1;
  for (uint32_t card : discard.cards()) {
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

absl::Status PyramidSchemeState::ValidatePlacePolice(uint32_t parent) const {
  if (phase_ != Phase::kPolice) return Refuse("no Police is owed now");
  for (int legal : PoliceParents(ActingSeat())) {
    if (static_cast<uint32_t>(legal) == parent) return absl::OkStatus();
  }
  return Refuse(absl::StrCat("a Police may not go below card ", parent));
}

absl::Status PyramidSchemeState::ValidateEndTurn() const {
  if (phase_ != Phase::kEndTurn) return Refuse("the turn cannot end now");
  return absl::OkStatus();
}

v1::Action PyramidSchemeState::ToAction(const Choice& choice) const {
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
  return v1::Action();
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
    *out.Add() = ToAction(choice);
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
  return ToAction(*sole);
}

// The rules page's "Default actions".
v1::Action PyramidSchemeState::DefaultAction(int seat) const {
  if (!IsActing(seat)) return v1::Action();
  const Seat& s = seats_[seat];
  switch (phase_) {
    case Phase::kAction: {
      for (int slot = 0; slot < static_cast<int>(display_.size()); ++slot) {
        if (CanTake(slot)) return TakeAction(slot);
      }
      const std::vector<int> order = s.pyramid.PyramidOrder();
      for (int card : s.hand) {
        for (int index : order) {
          const int parent = s.pyramid.node(index).card;
          if (CanPlace(card, parent, bypass_armed_)) {
            return PlaceAction(card, parent);
          }
        }
      }
      return ArmBypassAction();
    }
    case Phase::kFlip:
      return StopFlippingAction();
    case Phase::kReward:
      if (reward_ == v1::PSS_DISCARD_HAND) return DiscardAction(s.hand, 0);
      return TargetAction(reward_, RewardTargets().front());
    case Phase::kPolice:
      return PlacePoliceAction(PoliceParents(seat).front());
    case Phase::kEndTurn:
      return EndTurnAction();
    case Phase::kOver:
      break;
  }
  return v1::Action();
}

// ---------------------------------------------------------------------------
// The outcome.

std::vector<int32_t> PyramidSchemeState::Scores() const {
  std::vector<int32_t> scores;
  for (const Seat& seat : seats_) {
    scores.push_back(seat.live ? seat.pyramid.SmartAsses() : 0);
  }
  return scores;
}

// Live seats by smart-asses, then eliminated seats, later eliminations
// higher.
v1::Outcome PyramidSchemeState::RankedOutcome(
    v1::Termination termination) const {
  const std::vector<int32_t> scores = Scores();
  std::vector<int64_t> keys;
  for (int s = 0; s < num_seats(); ++s) {
    keys.push_back(seats_[s].live
                       ? -int64_t{scores[s]}
                       : kEliminatedRankKey - seats_[s].eliminated_order);
  }
  return OutcomeByKeys(keys, scores, termination);
}

// ---------------------------------------------------------------------------
// A checked test position.

absl::StatusOr<std::unique_ptr<PyramidSchemeState>>
PyramidSchemeState::FromPosition(const Edition& edition, const Options& options,
                                 const TestPosition& position,
                                 RandomStream stream) {
  const int num_seats = static_cast<int>(position.seats.size());
  if (num_seats < Description().min_seats ||
      num_seats > Description().max_seats) {
    return RefuseAction(
        Description(),
        absl::StrCat("needs ", SeatCounts(Description()), " seats"));
  }
  std::unique_ptr<PyramidSchemeState> state(
      new PyramidSchemeState(edition, options, std::move(stream)));
  std::vector<bool> victim_seen(edition.num_victims(), false);
  if (absl::Status status = state->SetSeats(position, victim_seen);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = state->SetCards(position, victim_seen);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = state->SetGoals(position); !status.ok()) {
    return status;
  }
  if (absl::Status status = state->SetTurn(position); !status.ok()) {
    return status;
  }
  state->EnterAction();
  return state;
}

absl::Status PyramidSchemeState::SetSeats(const TestPosition& position,
                                          std::vector<bool>& victim_seen) {
  auto take_capacity = [&](int value) {
    if (value != 2 && value != 3) return false;
    int& count =
        value == 2 ? supply_.capacity_2_tokens : supply_.capacity_3_tokens;
    if (count == 0) return false;
    --count;
    return true;
  };
  for (const TestSeat& spec : position.seats) {
    Seat& seat = seats_.emplace_back();
    seat.live = spec.live;
    if (!spec.live) {
      if (!spec.hand.empty() || !spec.pyramid.empty() ||
          spec.reset_tokens != 0 || spec.bypass_tokens != 0) {
        return Refuse("an eliminated seat holds nothing");
      }
      seat.eliminated_order = ++eliminations_;
      continue;
    }
    for (int card : spec.hand) {
      if (!UseVictim(*edition_, card, victim_seen)) {
        return Refuse("bad or repeated hand card");
      }
    }
    seat.hand = spec.hand;
    std::sort(seat.hand.begin(), seat.hand.end());
    seat.hand_limit_bonus = spec.hand_limit_bonus;
    seat.reset_tokens = spec.reset_tokens;
    seat.bypass_tokens = spec.bypass_tokens;
    supply_.reset_tokens -= spec.reset_tokens;
    supply_.bypass_tokens -= spec.bypass_tokens;
    if (supply_.reset_tokens < 0 || supply_.bypass_tokens < 0 ||
        spec.reset_tokens < 0 || spec.bypass_tokens < 0) {
      return Refuse("too many tokens held");
    }
    seat.pyramid = Pyramid::WithFounder(*edition_);
    seat.pyramid.mutable_node(0).flipped = spec.founder_flipped;
    for (int value : spec.founder_tokens) {
      if (!take_capacity(value)) return Refuse("bad capacity token");
      seat.pyramid.mutable_node(0).capacity_tokens.push_back(value);
    }
    for (const TestNode& node : spec.pyramid) {
      if (edition_->IsPolice(node.card)) {
        const int index = node.card - edition_->first_police_id();
        if (!supply_.police[index]) return Refuse("repeated Police");
        supply_.police[index] = false;
      } else if (!UseVictim(*edition_, node.card, victim_seen)) {
        return Refuse("bad or repeated pyramid card");
      }
      if (seat.pyramid.Find(node.parent) < 0) return Refuse("bad parent");
      seat.pyramid.Add(node.card, node.parent);
      Node& added = seat.pyramid.mutable_node(seat.pyramid.size() - 1);
      added.flipped = node.flipped;
      for (int value : node.capacity_tokens) {
        if (!take_capacity(value)) return Refuse("bad capacity token");
        added.capacity_tokens.push_back(value);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status PyramidSchemeState::SetCards(const TestPosition& position,
                                          std::vector<bool>& victim_seen) {
  if (position.display.size() != display_.size()) {
    return Refuse("wrong number of display slots");
  }
  for (size_t slot = 0; slot < position.display.size(); ++slot) {
    const int card = position.display[slot];
    if (card != kNoCard && !UseVictim(*edition_, card, victim_seen)) {
      return Refuse("bad display");
    }
    display_[slot] = card;
  }
  for (int card : position.deck) {
    if (!UseVictim(*edition_, card, victim_seen)) {
      return Refuse("bad deck card");
    }
  }
  for (int card : position.discard) {
    if (!UseVictim(*edition_, card, victim_seen)) {
      return Refuse("bad discard card");
    }
  }
  deck_ = position.deck;
  discard_ = position.discard;
  for (int card = 0; card < edition_->num_victims(); ++card) {
    if (!victim_seen[card]) out_of_game_.push_back(card);
  }
  return absl::OkStatus();
}

absl::Status PyramidSchemeState::SetGoals(const TestPosition& position) {
  auto valid_seat = [&](int seat) {
    return seat == kNoSeat || (seat >= 0 && seat < num_seats());
  };
  for (const TestGoal& goal : position.goals) {
    if (goal.goal < 0 || goal.goal >= edition_->num_goals ||
        !valid_seat(goal.claimed_by) || !valid_seat(goal.reserved_by)) {
      return Refuse("bad goal");
    }
    for (const Goal& other : goals_) {
      if (other.id == goal.goal) return Refuse("repeated goal");
    }
    goals_.push_back(Goal{.id = goal.goal,
                          .claimed_by = goal.claimed_by,
                          .reserved_by = goal.reserved_by});
  }
  std::sort(goals_.begin(), goals_.end(),
            [](const Goal& a, const Goal& b) { return a.id < b.id; });
  return absl::OkStatus();
}

absl::Status PyramidSchemeState::SetTurn(const TestPosition& position) {
  if (position.active_seat < 0 || position.active_seat >= num_seats() ||
      !seats_[position.active_seat].live) {
    return Refuse("the active seat must be live");
  }
  if (position.actions_done < 0 || position.actions_done > 1 ||
      position.turn < 1) {
    return Refuse("bad turn");
  }
  for (int seat = 0; seat < num_seats(); ++seat) {
    if (static_cast<int>(seats_[seat].hand.size()) > HandLimit(seat)) {
      return Refuse("hand over its limit");
    }
  }
  active_ = position.active_seat;
  turn_ = position.turn;
  actions_done_ = position.actions_done;
  bypass_armed_ = position.bypass_armed;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<State>> NewStateForTesting(
    const v1::GameConfig& config, const TestPosition& position,
    RandomStream stream) {
  absl::StatusOr<ResolvedConfig> resolved =
      ResolveConfig(Description(), config);
  if (!resolved.ok()) return resolved.status();
  absl::StatusOr<std::unique_ptr<PyramidSchemeState>> state =
      PyramidSchemeState::FromPosition(
          ReferenceEdition(),
          ToOptions(resolved->options, resolved->rules_version), position,
          std::move(stream));
  if (!state.ok()) return state.status();
  return std::unique_ptr<State>(*std::move(state));
}

}  // namespace pyramid::scheme
