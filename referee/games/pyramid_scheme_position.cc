// Pyramid Scheme's test positions (PyramidSchemeState::FromPosition).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "referee/games/pyramid_scheme_state.h"

namespace pyramid {
namespace pss {
namespace {

absl::Status Illegal(const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat("pyramid_scheme: ", message));
}

}  // namespace

// ---------------------------------------------------------------------------
// A checked test position.

absl::StatusOr<std::unique_ptr<PyramidSchemeState>>
PyramidSchemeState::FromPosition(const Edition& edition,
                                 const TestPosition& position,
                                 RandomStream stream) {
  const int num_seats = static_cast<int>(position.seats.size());
  if (num_seats < 2 || num_seats > 4) return Illegal("needs 2 to 4 seats");
  if (position.max_turns < 1 || position.max_turns > kMaxMaxTurns) {
    return Illegal("max_turns out of range");
  }
  std::unique_ptr<PyramidSchemeState> state(
      new PyramidSchemeState(edition, position.max_turns, std::move(stream)));
  std::vector<bool> victim_seen(edition.num_victims(), false);
  auto use_victim = [&](int card) {
    if (!edition.IsVictim(card) || victim_seen[card]) return false;
    victim_seen[card] = true;
    return true;
  };
  auto take_capacity = [&](int value) {
    if (value != 2 && value != 3) return false;
    int& count = value == 2 ? state->supply_.capacity_2_tokens
                            : state->supply_.capacity_3_tokens;
    if (count == 0) return false;
    --count;
    return true;
  };
  for (const TestSeat& spec : position.seats) {
    Seat& seat = state->seats_.emplace_back();
    seat.live = spec.live;
    if (!spec.live) {
      if (!spec.hand.empty() || !spec.pyramid.empty() ||
          spec.reset_tokens != 0 || spec.bypass_tokens != 0) {
        return Illegal("an eliminated seat holds nothing");
      }
      seat.eliminated_order = ++state->eliminations_;
      continue;
    }
    for (int card : spec.hand) {
      if (!use_victim(card)) return Illegal("bad or repeated hand card");
    }
    seat.hand = spec.hand;
    std::sort(seat.hand.begin(), seat.hand.end());
    seat.hand_limit_bonus = spec.hand_limit_bonus;
    seat.reset_tokens = spec.reset_tokens;
    seat.bypass_tokens = spec.bypass_tokens;
    state->supply_.reset_tokens -= spec.reset_tokens;
    state->supply_.bypass_tokens -= spec.bypass_tokens;
    if (state->supply_.reset_tokens < 0 || state->supply_.bypass_tokens < 0 ||
        spec.reset_tokens < 0 || spec.bypass_tokens < 0) {
      return Illegal("too many tokens held");
    }
    seat.pyramid = Pyramid::WithFounder(edition);
    seat.pyramid.mutable_node(0).flipped = spec.founder_flipped;
    for (int value : spec.founder_tokens) {
      if (!take_capacity(value)) return Illegal("bad capacity token");
      seat.pyramid.mutable_node(0).capacity_tokens.push_back(value);
    }
    for (const TestNode& node : spec.pyramid) {
      if (edition.IsPolice(node.card)) {
        const int index = node.card - edition.first_police_id();
        if (!state->supply_.police[index]) return Illegal("repeated Police");
        state->supply_.police[index] = false;
      } else if (!use_victim(node.card)) {
        return Illegal("bad or repeated pyramid card");
      }
      if (seat.pyramid.Find(node.parent) < 0) return Illegal("bad parent");
      seat.pyramid.Add(node.card, node.parent);
      Node& added = seat.pyramid.mutable_node(seat.pyramid.size() - 1);
      added.flipped = node.flipped;
      for (int value : node.capacity_tokens) {
        if (!take_capacity(value)) return Illegal("bad capacity token");
        added.capacity_tokens.push_back(value);
      }
    }
  }
  if (position.display.size() != state->display_.size()) {
    return Illegal("wrong number of display slots");
  }
  for (size_t slot = 0; slot < position.display.size(); ++slot) {
    const int card = position.display[slot];
    if (card != kNoCard && !use_victim(card)) return Illegal("bad display");
    state->display_[slot] = card;
  }
  for (int card : position.deck) {
    if (!use_victim(card)) return Illegal("bad deck card");
  }
  for (int card : position.discard) {
    if (!use_victim(card)) return Illegal("bad discard card");
  }
  state->deck_ = position.deck;
  state->discard_ = position.discard;
  for (int card = 0; card < edition.num_victims(); ++card) {
    if (!victim_seen[card]) state->out_of_game_.push_back(card);
  }
  auto valid_seat = [&](int seat) {
    return seat == kNoSeat || (seat >= 0 && seat < num_seats);
  };
  for (const TestGoal& goal : position.goals) {
    if (goal.goal < 0 || goal.goal >= edition.num_goals ||
        !valid_seat(goal.claimed_by) || !valid_seat(goal.reserved_by)) {
      return Illegal("bad goal");
    }
    for (const Goal& other : state->goals_) {
      if (other.id == goal.goal) return Illegal("repeated goal");
    }
    state->goals_.push_back(Goal{.id = goal.goal,
                                 .claimed_by = goal.claimed_by,
                                 .reserved_by = goal.reserved_by});
  }
  std::sort(state->goals_.begin(), state->goals_.end(),
            [](const Goal& a, const Goal& b) { return a.id < b.id; });
  if (position.active_seat < 0 || position.active_seat >= num_seats ||
      !state->seats_[position.active_seat].live) {
    return Illegal("the active seat must be live");
  }
  if (position.actions_done < 0 || position.actions_done > 1 ||
      position.turn < 1) {
    return Illegal("bad turn");
  }
  for (int seat = 0; seat < num_seats; ++seat) {
    if (static_cast<int>(state->seats_[seat].hand.size()) >
        state->HandLimit(seat)) {
      return Illegal("hand over its limit");
    }
  }
  state->active_ = position.active_seat;
  state->turn_ = position.turn;
  state->actions_done_ = position.actions_done;
  state->bypass_armed_ = position.bypass_armed;
  state->EnterAction();
  state->events_.clear();
  return state;
}

}  // namespace pss
}  // namespace pyramid
