#include "tools/bot/decision_request.h"

#include <utility>
#include <vector>

namespace pyramid {

v1::DecisionRequest DecisionRequestFor(const State& state,
                                       const std::string& game,
                                       const std::string& match_id,
                                       uint64_t decision_id, int seat) {
  v1::DecisionRequest request;
  request.set_match_id(match_id);
  request.set_game(game);
  request.set_seat(seat);
  request.set_num_seats(state.num_seats());
  request.set_decision_id(decision_id);
  for (int s : state.ActingSeats()) request.add_acting_seats(s);
  request.set_simultaneous(state.IsSimultaneous());
  *request.mutable_observation() = state.ObservationFor(seat);
  request.set_legal_actions_listed(state.ListsLegalActions());
  for (v1::Action& action : state.LegalActions(seat)) {
    *request.add_legal_actions() = std::move(action);
  }
  return request;
}

}  // namespace pyramid
