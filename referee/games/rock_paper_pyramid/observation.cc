// What Rock, Paper, Pyramid! shows: everything is public (pools, scores,
// every round), so a seat's observation is the public view with its seat.
#include <string>

#include "referee/games/rock_paper_pyramid/state.h"

namespace pyramid::rpp {

void RockPaperPyramidState::PublicViewInto(v1::Observation& observation) const {
  observation.set_public_view(true);
  v1::RockPaperPyramidObservation* game =
      observation.mutable_rock_paper_pyramid();
  game->set_rounds_played(static_cast<uint32_t>(RoundsPlayed()));
  game->set_total_rounds(static_cast<uint32_t>(total_rounds_));
  for (int seat = 0; seat < kNumSeats; ++seat) {
    v1::RppSeatView* view = game->add_seats();
    for (int kind = 0; kind < kNumKinds; ++kind) {
      if (pools_[seat][kind]) PieceOfKind(kind, *view->add_pool());
    }
    view->set_score(tallies_[seat].score);
    for (const v1::RppPiece& piece : tallies_[seat].scored) {
      *view->add_scored() = piece;
    }
  }
  for (int index = 0; index < RoundsPlayed(); ++index) {
    AddRound(index, *game->add_history());
  }
}

void RockPaperPyramidState::ObservationInto(
    int seat, v1::Observation& observation) const {
  PublicViewInto(observation);
  observation.set_public_view(false);
  observation.set_seat(static_cast<uint32_t>(seat));
}

}  // namespace pyramid::rpp
