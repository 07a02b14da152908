// What a Flaming Pyramids seat sees: the table, every pile's size and top
// face-up tile, its own hand (others' hand sizes only), and the turns under
// way; the public view shows no hand.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "pyramid/referee/v1/flaming_pyramids.pb.h"
#include "referee/games/flaming_pyramids/board.h"
#include "referee/games/flaming_pyramids/state.h"

namespace pyramid::fp {

void FlamingPyramidsState::ViewInto(std::optional<int> seat,
                                    v1::Observation& observation) const {
  v1::FlamingPyramidsObservation& view =
      *observation.mutable_flaming_pyramids();
  switch (phase_) {
    case Phase::kPlace:
      view.set_phase(v1::FP_PLACE);
      break;
    case Phase::kFall:
      view.set_phase(v1::FP_FALL);
      break;
    case Phase::kOver:
      view.set_phase(v1::FP_GAME_OVER);
      break;
  }
  view.set_active_seat(static_cast<uint32_t>(active_));
  view.set_receiver(static_cast<uint32_t>(receiver_));
  view.set_turns_completed(static_cast<uint32_t>(turns_completed_));
  view.set_max_turns(static_cast<uint32_t>(options_.max_turns));
  view.set_curse(options_.curse);
  AddLayout(board_, *view.mutable_pyramid());
  for (int s = 0; s < num_seats_; ++s) {
    v1::FpSeatView& seat_view = *view.add_seats();
    const Pile& pile = piles_[s];
    seat_view.set_hand_size(static_cast<uint32_t>(hands_[s].size()));
    seat_view.set_pile_size(static_cast<uint32_t>(pile.tiles.size()));
    seat_view.set_dealt_left(static_cast<uint32_t>(pile.dealt_left));
    for (size_t i = static_cast<size_t>(pile.dealt_left); i < pile.tiles.size();
         ++i) {
      seat_view.add_under(static_cast<uint32_t>(pile.tiles[i]));
    }
    if (s == seat) {
      for (int tile : hands_[s])
        seat_view.add_own_hand(static_cast<uint32_t>(tile));
    }
  }
  for (int tile : removed_) view.add_removed(static_cast<uint32_t>(tile));
  if (phase_ == Phase::kPlace) {
    for (Cell spot : board_.LegalSpots()) {
      v1::FpSpot& out = *view.add_legal_spots();
      out.set_row(static_cast<uint32_t>(spot.row));
      out.set_x(spot.x);
    }
  }
  if (phase_ == Phase::kFall) {
    SetPending(*view.mutable_pending());
    *view.mutable_current_turn() = current_turn_;
  }
  for (const v1::FpTurn& turn : recent_turns_) *view.add_recent_turns() = turn;
  if (winner_.has_value()) view.set_winner(static_cast<uint32_t>(*winner_));
}

}  // namespace pyramid::fp
