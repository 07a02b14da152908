#include "referee/games/pyramid_scheme/state.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "referee/games/pyramid_scheme/board.h"

namespace pyramid::scheme {
namespace {

bool Contains(const std::vector<int>& items, int item) {
  return std::find(items.begin(), items.end(), item) != items.end();
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

absl::Status Refuse(std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("pyramid_scheme: ", std::string(why)));
}

// ---------------------------------------------------------------------------
// Construction.

PyramidSchemeState::PyramidSchemeState(const Edition& edition, int max_turns,
                                       RandomStream stream)
    : edition_(&edition), max_turns_(max_turns), stream_(std::move(stream)) {
  supply_.police.assign(edition.num_police, true);
  supply_.reset_tokens = edition.reset_tokens;
  supply_.bypass_tokens = edition.bypass_tokens;
  supply_.capacity_2_tokens = edition.capacity_2_tokens;
  supply_.capacity_3_tokens = edition.capacity_3_tokens;
  display_.assign(edition.display_slots, kNoCard);
}

// The setup draws, in the rules page's order: the Victim shuffle, the Goal
// shuffle, then the starter's tie-break (only when seats tie).
PyramidSchemeState::PyramidSchemeState(const Edition& edition, int max_turns,
                                       int num_seats, RandomStream stream)
    : PyramidSchemeState(edition, max_turns, std::move(stream)) {
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
  if (turn_ >= max_turns_) {
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
  switch (reward) {
    case v1::PSS_NO_REWARD:
      ContinueFlipWindow();
      return;
    case v1::PSS_TAKE_RESET:
    case v1::PSS_TAKE_BYPASS:
    case v1::PSS_HAND_LIMIT_1:
      ResolveSimpleReward(card, reward);
      ClaimGoals();
      ContinueFlipWindow();
      return;
    default:
      break;
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

// ---------------------------------------------------------------------------
// A checked test position.

absl::StatusOr<std::unique_ptr<PyramidSchemeState>>
PyramidSchemeState::FromPosition(const Edition& edition,
                                 const TestPosition& position,
                                 RandomStream stream) {
  const int num_seats = static_cast<int>(position.seats.size());
  if (num_seats < 2 || num_seats > 4) return Refuse("needs 2 to 4 seats");
  if (position.max_turns < 1 || position.max_turns > kMaxMaxTurns) {
    return Refuse("max_turns out of range");
  }
  std::unique_ptr<PyramidSchemeState> state(
      new PyramidSchemeState(edition, position.max_turns, std::move(stream)));
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

}  // namespace pyramid::scheme
