// A Flaming Pyramids move: a placement and the mayhem it sets off (rules
// checks 1 to 5), each fall the chooser directs, and the end of the turn.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "pyramid/referee/v1/flaming_pyramids.pb.h"
#include "referee/games/flaming_pyramids/board.h"
#include "referee/games/flaming_pyramids/state.h"
#include "referee/games/flaming_pyramids/tables.h"

namespace pyramid::fp {

void FlamingPyramidsState::DoApply(absl::Span<const SeatAction> actions,
                                   v1::Result& result) {
  const SeatAction& seat_action = actions.front();
  const v1::FlamingPyramidsAction& action =
      seat_action.action.flaming_pyramids();
  v1::FlamingPyramidsResult& fp_result = *result.mutable_flaming_pyramids();
  fp_result.set_turn(static_cast<uint32_t>(turns_completed_ + 1));
  fp_result.set_seat(static_cast<uint32_t>(seat_action.seat));
  fp_result.set_active_seat(static_cast<uint32_t>(active_));
  if (phase_ == Phase::kPlace) {
    Place(action.place(), fp_result);
  } else {
    const Mayhem fall = *pending_;
    pending_.reset();
    v1::FpEvent& event = *fp_result.add_events();
    ApplyEvent(fall, action.fall(), event);
  }
  ResolveMayhem(fp_result);
  AddLayout(board_, *fp_result.mutable_pyramid());
}

void FlamingPyramidsState::Place(const v1::FpPlace& place,
                                 v1::FlamingPyramidsResult& result) {
  const int tile = static_cast<int>(place.tile());
  std::vector<int>& hand = hands_[active_];
  hand.erase(std::find(hand.begin(), hand.end(), tile));
  board_.Put(Cell{static_cast<int>(place.row()), place.x()}, tile);
  *result.mutable_placed() = place;
  current_turn_.Clear();
  current_turn_.set_turn(static_cast<uint32_t>(turns_completed_ + 1));
  current_turn_.set_seat(static_cast<uint32_t>(active_));
  *current_turn_.mutable_placed() = place;
}

// Mayhem, one event at a time, each found by scanning again from check 1,
// until it is over (the turn ends) or a tile must fall (the chooser is
// asked).
void FlamingPyramidsState::ResolveMayhem(v1::FlamingPyramidsResult& result) {
  while (true) {
    std::optional<Mayhem> mayhem = FindMayhem(board_, options_.curse);
    if (!mayhem.has_value()) {
      EndTurn(result);
      return;
    }
    if (mayhem->Falls()) {
      pending_ = std::move(mayhem);
      phase_ = Phase::kFall;
      if (options_.rules_version >= 2) {
        // The supports go at once; only the fall waits for its direction.
        for (Cell cell : pending_->to_pile) {
          const int tile = board_.Take(cell);
          piles_[receiver_].tiles.push_back(tile);
          pending_supports_.push_back(tile);
        }
      }
      SetPending(*result.mutable_pending());
      return;
    }
    ApplyEvent(*mayhem, v1::FP_DIRECTION_UNSPECIFIED, *result.add_events());
  }
}

// Carries out one event: tiles under the receiver's pile in order, tiles out
// of the game, then the fall (in `direction`). A curse's tiles go to the
// previous seat, which receives and chooses for the rest of the turn.
void FlamingPyramidsState::ApplyEvent(const Mayhem& mayhem,
                                      v1::FpDirection direction,
                                      v1::FpEvent& event) {
  const int receiver =
      mayhem.kind == MayhemKind::kCurse ? PreviousSeat() : receiver_;
  event.set_kind(EventKindProto(mayhem.kind));
  event.set_cause(static_cast<uint32_t>(*board_.At(mayhem.cause)));
  event.set_receiver(static_cast<uint32_t>(receiver));
  for (size_t i = 0; i < mayhem.to_pile.size(); ++i) {
    const Cell cell = mayhem.to_pile[i];
    int tile;
    if (i < pending_supports_.size()) {  // Gone when the collapse happened.
      tile = pending_supports_[i];
    } else {
      tile = board_.Take(cell);
      piles_[receiver].tiles.push_back(tile);
    }
    AddMove(tile, cell, v1::FP_TO_PILE, event)
        ->set_pile_seat(static_cast<uint32_t>(receiver));
  }
  pending_supports_.clear();
  for (Cell cell : mayhem.removed) {
    const int tile = board_.Take(cell);
    removed_.push_back(tile);
    AddMove(tile, cell, v1::FP_TO_REMOVED, event);
  }
  if (mayhem.Falls()) {
    const Cell to = direction == v1::FP_LEFT ? LeftSupport(mayhem.cause)
                                             : RightSupport(mayhem.cause);
    const int tile = board_.Take(mayhem.cause);
    board_.Put(to, tile);
    v1::FpTileMove* move = AddMove(tile, mayhem.cause, v1::FP_TO_TABLE, event);
    move->set_to_row(static_cast<uint32_t>(to.row));
    move->set_to_x(to.x);
    event.set_direction(direction);
  }
  receiver_ = receiver;
  *current_turn_.add_events() = event;
}

void FlamingPyramidsState::SetPending(v1::FpPendingFall& pending) const {
  pending.set_kind(EventKindProto(pending_->kind));
  const Cell cell = pending_->cause;
  pending.set_tile(static_cast<uint32_t>(*board_.At(cell)));
  pending.set_row(static_cast<uint32_t>(cell.row));
  pending.set_x(cell.x);
  pending.set_chooser(static_cast<uint32_t>(receiver_));
  for (size_t i = 0; i < pending_->to_pile.size(); ++i) {
    const Cell support = pending_->to_pile[i];
    SetCell(support,
            i < pending_supports_.size() ? pending_supports_[i]
                                         : *board_.At(support),
            *pending.add_supports());
  }
}

// Steps 3 and 4 of a turn, then the move limit and the next seat.
void FlamingPyramidsState::EndTurn(v1::FlamingPyramidsResult& result) {
  v1::FpTurnEnd& end = *result.mutable_turn_end();
  end.set_drawn(static_cast<uint32_t>(Draw(active_)));
  const bool won = Held(active_) == 0;
  ++turns_completed_;
  end.set_won(won);
  end.set_turns_completed(static_cast<uint32_t>(turns_completed_));
  end.mutable_held()->Reserve(num_seats_);  // At once, as AddLayout's cells.
  for (int seat = 0; seat < num_seats_; ++seat) {
    end.add_held(static_cast<uint32_t>(Held(seat)));
  }
  const bool move_limit = !won && turns_completed_ >= options_.max_turns;
  end.set_move_limit(move_limit);
  *current_turn_.mutable_end() = end;
  recent_turns_.push_back(std::move(current_turn_));
  while (static_cast<int>(recent_turns_.size()) > num_seats_) {
    // The turn that drops out lends its messages' memory to the next one
    // (Clear keeps it) instead of being freed while the next allocates.
    current_turn_ = std::move(recent_turns_.front());
    recent_turns_.pop_front();
  }
  current_turn_.Clear();
  if (won) winner_ = active_;
  if (won || move_limit) {
    phase_ = Phase::kOver;
    return;
  }
  active_ = (active_ + 1) % num_seats_;
  receiver_ = active_;
  phase_ = Phase::kPlace;
}

}  // namespace pyramid::fp
